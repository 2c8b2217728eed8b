/** Deadlines and waits that a caller's AbortSignal cuts short. */

export interface Deadline {
  readonly signal: AbortSignal;
  timedOut(): boolean;
  /** Stop the clock (a stream's headers arrived); the caller's signal still aborts. */
  stopClock(): void;
  /** Stop the clock and let go of the caller's signal. */
  release(): void;
}

/** A signal that aborts after `ms` or when `caller` does, whichever is first. */
export function deadline(caller: AbortSignal | undefined, ms: number): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  const follow = () => controller.abort(caller?.reason);
  if (caller?.aborted) follow();
  else caller?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    stopClock: () => clearTimeout(timer),
    release: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', follow);
    },
  };
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
