/**
 * `promise`'s value if it fulfils within `ms`, else `fallback`: for probes that must answer on
 * time (readiness, metrics scrapes) whatever they ask hangs or fails. The timer is cleared
 * either way so a quick answer leaves nothing behind to hold the process open.
 */
export async function settleWithin<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => { timer = setTimeout(() => resolve(fallback), ms); });
  try {
    return await Promise.race([promise.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}
