import { useCallback, useEffect, useState } from "react";
import { take } from "./firstView";

/** useAsync runs load whenever key changes (and on reload), keeping the
 * latest answer only; the first run takes the request firstView started
 * early under the same key, if any. loading is true from the very render in which key
 * changes: the data shown is then the previous key's. */
export function useAsync<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; key?: string }>({ loading: true });
  const [n, setN] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(() => (n === 0 && take<T>(key)) || load(), [key, n]);
  useEffect(() => {
    let live = true;
    setState((s) => ({ data: s.data, loading: true, key: s.key }));
    run().then(
      (data) => live && setState({ data, loading: false, key }),
      (error: unknown) => live && setState({ error, loading: false, key }),
    );
    return () => {
      live = false;
    };
  }, [run, key]);
  return { ...state, loading: state.loading || state.key !== key, reload: () => setN((x) => x + 1) };
}

/** useAfterPaint turns true in the frame after ready first holds (once
 * the browser has painted what ready brought), and stays true. */
export function useAfterPaint(ready: boolean) {
  const [after, setAfter] = useState(false);
  useEffect(() => {
    if (!ready || after) return;
    let t: ReturnType<typeof setTimeout> | undefined;
    const id = requestAnimationFrame(() => { t = setTimeout(() => setAfter(true)); });
    return () => {
      cancelAnimationFrame(id);
      clearTimeout(t);
    };
  }, [ready, after]);
  return after;
}
