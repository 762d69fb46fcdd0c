import { useCallback, useEffect, useState } from "react";

/** useAsync runs load whenever key changes (and on reload), keeping the
 * latest answer only. */
export function useAsync<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, [key, n]);
  useEffect(() => {
    let live = true;
    setState((s) => ({ data: s.data, loading: true }));
    run().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [run]);
  return { ...state, reload: () => setN((x) => x + 1) };
}
