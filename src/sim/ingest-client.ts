/**
 * How the simulator pushes records: POST /ingest/{oem} over HTTP, like a real automaker cloud.
 * Transport failures and 5xx are retried with backoff (the service may be restarting); a 4xx
 * means the simulator is misconfigured (wrong key, unknown OEM) and is reported at once.
 */
export interface IngestAnswer {
  readonly accepted: number;
  readonly rejected: readonly { index: number; reason: string }[];
}

const RETRIES = 5;
const TIMEOUT_MS = 30_000;

export class IngestRefused extends Error {
  constructor(readonly status: number, detail: string) {
    super(`ingest refused with ${status}: ${detail}`);
    this.name = 'IngestRefused';
  }
}

export async function pushRecords(baseUrl: string, oem: string, key: string, records: readonly unknown[]): Promise<IngestAnswer> {
  const url = `${baseUrl.replace(/\/$/, '')}/ingest/${encodeURIComponent(oem)}`;
  const body = JSON.stringify({ records });
  let lastError: unknown;
  for (let attempt = 0; attempt <= RETRIES; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 200 * 2 ** attempt)));
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status >= 400 && res.status < 500) throw new IngestRefused(res.status, text);
      if (res.ok) return JSON.parse(text) as IngestAnswer;
      lastError = new Error(`ingest answered ${res.status}`);
    } catch (error) {
      if (error instanceof IngestRefused) throw error;
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}
