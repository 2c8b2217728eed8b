/**
 * The peak resident memory of a process the benchmark started (processes.mjs handle), sampled
 * while something runs.
 */

/** Samples `proc.rssMb()` every `intervalMs`; `stop()` returns the highest value seen, MB. */
export function rssSampler(proc, intervalMs = 50) {
  let peak = proc.rssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, proc.rssMb());
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, proc.rssMb());
      return peak;
    },
  };
}
