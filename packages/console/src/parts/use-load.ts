import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: Error | undefined;
  readonly loading: boolean;
  reload(): void;
}

/** One asynchronous read, again whenever `deps` change; a late answer of an older read is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => { if (current) setState({ data, loading: false }); },
      (error: Error) => { if (current) setState({ error, loading: false }); },
    );
    return () => { current = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
