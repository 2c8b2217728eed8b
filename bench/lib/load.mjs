/**
 * Load from a separate process on loopback (autocannon, see load-child.mjs), and the rounds every
 * figure is the median of.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMeter, processCpuMs, processMinorFaults } from './cpu-time.mjs';
import { median } from './report.mjs';
import { wrk } from './wrk.mjs';

const CHILD = fileURLToPath(new URL('./load-child.mjs', import.meta.url));

/**
 * Runs `runs` concurrently for `duration` seconds from one autocannon process; resolves to each
 * run's result (rps counts 2xx answers only; non2xx, errors and timeouts are reported).
 */
export async function load(runs, duration) {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-load-'));
  try {
    const planFile = join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify({ duration, runs }));
    const stdout = await new Promise((resolve, reject) => {
      execFile(process.execPath, [CHILD, planFile], { maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
        if (error) reject(new Error(`load generator failed: ${err || error.message}`));
        else resolve(out);
      });
    });
    return JSON.parse(stdout.trim().split('\n').at(-1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Throws when a run had answers other than 2xx, or transport errors: a figure must not hide failures. */
export function assertClean(result, what) {
  if (result.non2xx || result.errors || result.timeouts) {
    throw new Error(`${what}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodes)}), ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return result;
}

/**
 * Figures of several request kinds measured alike: one warm-up each, then `rounds` rounds in which
 * every kind runs once in turn (so drift of a noisy machine spreads over all of them), each run
 * alone and clean. The second round, the fourth, … run the kinds in the reverse order, so a kind
 * run early in one round runs late in the next: the machine's speed rising or falling over a
 * round falls on both sides of a ratio alike over a pair of rounds, and pairedRatio cancels it
 * (what a run leaves for the one after it does not cancel so: floorRounds). At the turn of a
 * round, the last kind runs twice in a row. A run's optional `settle()` is awaited after each of
 * its loads, so work it leaves behind (commands to poll) is done before the next kind is
 * measured. Resolves to the median requests/s, mean latency and p99 of each, by name; for a run
 * given the `pid` of the process it loads, also the median CPU µs and minor page faults that
 * process spent an answer.
 */
export async function measureRates(runs, { rounds, seconds, warmupSeconds }) {
  const once = async (run, duration, what) => {
    const { settle, generator, pid, ...plan } = run;
    const meter = pid === undefined ? undefined : cpuMeter({ cpuMs: () => processCpuMs(pid), faults: () => processMinorFaults(pid) });
    // `generator: 'wrk'`: loaded by wrk (bench/lib/wrk.mjs) instead of autocannon.
    const result = assertClean(generator === 'wrk' ? await wrk(plan, duration) : (await load([plan], duration))[0], what);
    if (meter !== undefined) {
      const spent = meter.stop();
      const answered = result.rps * duration;
      result.cpuUs = (spent.cpuMs * 1000) / answered;
      result.faults = spent.faults / answered;
    }
    await settle?.();
    return result;
  };
  for (const run of runs) await once(run, warmupSeconds, `${run.name} (warm-up)`);
  const results = new Map(runs.map((r) => [r.name, []]));
  for (let i = 0; i < rounds; i += 1) {
    for (const run of orderOfRound(runs, i)) results.get(run.name).push(await once(run, seconds, run.name));
  }
  return Object.fromEntries([...results].map(([name, rs]) => [name, {
    rps: median(rs.map((r) => r.rps)), mean: median(rs.map((r) => r.mean)), p99: median(rs.map((r) => r.p99)), rounds: rs.map((r) => r.rps),
    ...(rs[0].cpuUs === undefined ? {} : { cpuUs: median(rs.map((r) => r.cpuUs)), faults: median(rs.map((r) => r.faults)) }),
  }]));
}

/** The runs of round `round` (counted from 0) in the order they run: as listed, or reversed every other round. */
export const orderOfRound = (runs, round) => (round % 2 === 0 ? runs : [...runs].reverse());

/**
 * The ratio of kind `name` to kind `floor` (or to two kinds: floorRounds) in `measureRates`' result:
 * the median over pairs of rounds of each pair's own ratio. The machine's speed drifts by a third
 * within a minute (bench/history/2026-11-28-run-to-run-swings-young-generation.md); a round's runs, made back to back, share
 * its speed, while the ratio of two medians can pair a fast minute of one with a slow minute of
 * the other. A pair of rounds (the 1st and 2nd, the 3rd and 4th, …) ran the kinds once in each
 * order (measureRates), and its ratio is the geometric mean of the two rounds' ratios, which
 * cancels the machine's drift over a round (what the start of a round gives, the end takes back;
 * bench/history/2026-11-30-rounds-in-both-orders.md). A last round without its pair counts alone.
 */
export function pairedRatio(rates, name, floor) {
  const ratios = roundRatios(rates, name, floor);
  const pairs = [];
  for (let i = 0; i < ratios.length; i += 2) pairs.push(i + 1 < ratios.length ? Math.sqrt(ratios[i] * ratios[i + 1]) : ratios[i]);
  return median(pairs);
}

/** The lowest and highest of the round ratios `pairedRatio` is made of, as `0.91–1.08`. */
export function roundsRange(rates, name, floor) {
  const ratios = roundRatios(rates, name, floor);
  return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
}

/**
 * The median round ratio of kind `name` to kind `floor` in the rounds of each order (the first
 * order, in which the runs ran as listed, and the reverse), as `1.12 | 0.97`: for an A/A control,
 * how much the place in the order moves a ratio by itself.
 */
export function ratioByOrder(rates, name, floor) {
  const ratios = roundRatios(rates, name, floor);
  const inOrder = (parity) => median(ratios.filter((_, i) => i % 2 === parity)).toFixed(2);
  return ratios.length < 2 ? inOrder(0) : `${inOrder(0)} | ${inOrder(1)}`;
}

/**
 * Each round's rate of kind `floor`; given two kinds (identical floor processes, each run just
 * before the figure in one order: `[before it as listed, before it reversed]`), each round's rate
 * of the one run just before the figure in that round. So a figure's floor always runs right
 * before it, as in every round before rounds were reversed, and never right after: a run just
 * after another kind's load carries whatever that load left, and the reversal would otherwise
 * put the floor there every other round.
 */
export function floorRounds(rates, floor) {
  if (typeof floor === 'string') return rates[floor].rounds;
  return rates[floor[0]].rounds.map((_, i) => rates[floor[i % 2]].rounds[i]);
}

/** Each round's rate of kind `name` over the rate of `floor` (a kind, or two: floorRounds) in the same round. */
function roundRatios(rates, name, floor) {
  const b = floorRounds(rates, floor);
  return rates[name].rounds.map((rps, i) => rps / b[i]);
}
