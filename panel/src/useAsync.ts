import { useCallback, useEffect, useState } from "react";
import { take } from "./firstView";

/** useAsync runs load whenever key changes (and on reload), keeping the
 * latest answer only: a request superseded by the next key is aborted
 * (its signal), so typing does not leave requests running. The first run
 * takes the request firstView started early under the same key, if any.
 * loading is true from the very render in which key changes: the data
 * shown is then the previous key's, and stays after an error (a view may
 * keep showing it, dimmed, beside the error). */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, key: string) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; key?: string }>({ loading: true });
  const [n, setN] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback((signal: AbortSignal) => (n === 0 && take<T>(key)) || load(signal), [key, n]);
  useEffect(() => {
    let live = true;
    const abort = new AbortController();
    setState((s) => ({ data: s.data, loading: true, key: s.key }));
    run(abort.signal).then(
      (data) => live && setState({ data, loading: false, key }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false, key })),
    );
    return () => {
      live = false;
      abort.abort();
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
