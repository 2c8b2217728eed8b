/** The count of one series of the request histogram in a /metrics text, found by its exact line (no pattern built from the labels). */
export function countOf(text: string, method: string, route: string, status: number): number {
  const prefix = `http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? 0 : Number(line.slice(prefix.length));
}
