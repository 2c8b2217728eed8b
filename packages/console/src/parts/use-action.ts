import { useState } from 'preact/hooks';

export interface Action {
  /** Runs `work`, then `after` (a reload of what it changed); a refusal's text becomes `problem`. */
  run(work: () => Promise<void>): Promise<void>;
  readonly busy: boolean;
  readonly problem: string | undefined;
}

/** A screen's changes: one at a time, the service's refusal shown as it comes. */
export function useAction(after: () => void): Action {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await work();
      after();
    } catch (e) {
      setProblem((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, problem };
}
