import type { Registry } from 'prom-client';

/** The count of one series of the request histogram in a /metrics text, found by its exact line (no pattern built from the labels). */
export function countOf(text: string, method: string, route: string, status: number): number {
  const prefix = `http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? 0 : Number(line.slice(prefix.length));
}

/** The value of one series of a metric in a prom-client registry (0 when the series has not been written). */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const found = (await registry.getSingleMetric(name)?.get())?.values.find((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));
  return found?.value ?? 0;
}

/** The sum of every series of the metric `name` in a /metrics text (0 when it has none). */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').at(-1));
  return sum;
}
