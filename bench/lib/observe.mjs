/**
 * Watching a running service and simulator from a benchmark or the soak: waiting for a condition,
 * checking a request works before it is measured, the service's own counts of ingest answers,
 * and the simulator's warnings.
 */
import { readFileSync } from 'node:fs';

/** Polls `condition` every 500 ms until it holds; throws `message()` after `timeoutMs`. */
export async function waitUntil(condition, timeoutMs, message) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(message());
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One request of a run, which must answer 2xx: a reader that cannot work fails the suite with the reason. */
export async function preflight(base, r) {
  const path = r.paths?.[0] ?? new URL(r.url).pathname;
  const body = r.bodiesFile ? readFileSync(r.bodiesFile, 'utf8').split('\n')[0] : r.body;
  const res = await fetch(`${base}${path}`, { method: r.method ?? 'GET', headers: r.headers, body });
  if (!res.ok) throw new Error(`${r.name}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

/** POST /ingest/{oem} answers since the service started, by status, from its /metrics. */
export async function ingestStatuses(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const counts = {};
  for (const m of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)/gm)) {
    if (!m[1].includes('route="/ingest/:oem"')) continue;
    const status = /status="(\d+)"/.exec(m[1])?.[1] ?? '?';
    counts[status] = (counts[status] ?? 0) + Number(m[2]);
  }
  return counts;
}

/** Lines of the simulator's (pino) log at warn or above. */
export function warningsIn(file) {
  const out = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.level >= 40) out.push(`${entry.msg}${entry.reason ? `: ${entry.reason}` : ''}${entry.err ? `: ${entry.err.message}` : ''}`);
    } catch { /* not a log line */ }
  }
  return out;
}
