/**
 * The HTTP connector: `POST {base}/commands {id, vin, command}` answers `{status_url}`;
 * `GET status_url` answers `{status: "pending" | "success" | "error", result?, error?}`.
 * A status URL is fetched only when it has the same scheme, host and port as the configured base
 * URL (a hostile automaker answer cannot make us fetch elsewhere), without following redirects,
 * with a timeout and a cap on the size read.
 */
import { OemFailure, type CommandRequest, type CommandState, type OemConnector } from './oem-connector.js';

export interface HttpConnectorSettings {
  readonly baseUrl: string;
  readonly initiateTimeoutMs: number;
  readonly pollTimeoutMs: number;
  /** Sent as `Authorization: Bearer` when the automaker needs a key. */
  readonly apiKey?: string | undefined;
}

const MAX_BODY_BYTES = 64 * 1024;

async function readJson(response: Response): Promise<unknown> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new Error('automaker answer too large');
    }
    chunks.push(value);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export class HttpConnector implements OemConnector {
  readonly #settings: HttpConnectorSettings;
  readonly #origin: string;

  constructor(settings: HttpConnectorSettings) {
    this.#settings = settings;
    this.#origin = new URL(settings.baseUrl).origin;
  }

  #headers(): Record<string, string> {
    return { accept: 'application/json', ...(this.#settings.apiKey ? { authorization: `Bearer ${this.#settings.apiKey}` } : {}) };
  }

  async initiate(request: CommandRequest): Promise<{ statusUrl: string }> {
    let response: Response;
    try {
      response = await fetch(new URL('commands', this.#settings.baseUrl.endsWith('/') ? this.#settings.baseUrl : `${this.#settings.baseUrl}/`), {
        method: 'POST',
        headers: { ...this.#headers(), 'content-type': 'application/json' },
        body: JSON.stringify({ id: request.commandId, vin: request.vin, command: request.command }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#settings.initiateTimeoutMs),
      });
    } catch (error) {
      throw new OemFailure('send', `automaker unreachable: ${(error as Error).message}`);
    }
    if (response.status >= 500) throw new OemFailure('send', `automaker answered ${response.status}`);
    if (response.status < 200 || response.status >= 300) throw new OemFailure('initiate', `automaker refused with ${response.status}`);
    let body: unknown;
    try {
      body = await readJson(response);
    } catch (error) {
      throw new OemFailure('initiate', `unreadable automaker answer: ${(error as Error).message}`);
    }
    const statusUrl = (body as { status_url?: unknown } | undefined)?.status_url;
    if (typeof statusUrl !== 'string' || !this.#sameOrigin(statusUrl)) throw new OemFailure('initiate', 'no usable status URL');
    return { statusUrl };
  }

  #sameOrigin(url: string): boolean {
    try {
      return new URL(url).origin === this.#origin;
    } catch {
      return false;
    }
  }

  async poll(statusUrl: string): Promise<CommandState> {
    if (!this.#sameOrigin(statusUrl)) return { state: 'error', reason: 'internal' };
    let response: Response;
    let body: unknown;
    try {
      response = await fetch(statusUrl, { headers: this.#headers(), redirect: 'manual', signal: AbortSignal.timeout(this.#settings.pollTimeoutMs) });
      if (response.status >= 500 || response.status === 429) throw new Error(`automaker answered ${response.status}`);
      body = await readJson(response);
    } catch (error) {
      throw new OemFailure('send', `status unavailable: ${(error as Error).message}`);
    }
    if (response.status >= 400) return { state: 'error', reason: 'internal' };
    const answer = body as { status?: unknown; result?: unknown; error?: unknown } | undefined;
    if (answer?.status === 'pending') return { state: 'pending' };
    if (answer?.status === 'success') {
      const result = typeof answer.result === 'object' && answer.result !== null && !Array.isArray(answer.result) ? answer.result as Record<string, unknown> : {};
      return { state: 'success', result };
    }
    // An error, or an answer we cannot read: the command failed at the automaker.
    return { state: 'error', reason: typeof answer?.error === 'string' ? answer.error : 'internal' };
  }
}
