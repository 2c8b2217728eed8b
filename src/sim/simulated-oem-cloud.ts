/**
 * The simulated automaker cloud: a real HTTP server speaking the HTTP connector's protocol.
 *   POST /commands {id, vin, command}  → 202 {status_url}; with `Idempotency-Key`, a repeat with
 *                                        the same key and body gets the same status URL and the
 *                                        vehicle acts once (the same key with another body: 422)
 *   GET  /commands/{id}                → {status: "pending"} until the vehicle has answered, then
 *                                        {status: "success", result} or {status: "error", error}
 * The vehicle answers after a realistic latency, from its simulated state at that moment, by its
 * `sim.profile`: `offline` never answers, `moving` is always driving, `privacy` restricts location,
 * `flaky` fails communication half of the time. Fault knobs break the cloud itself.
 * Every request must carry `Authorization: Bearer <apiKey>` when the cloud has a key: the server
 * listens on a real port, and without one any local process could command any simulated vehicle.
 * Like a real automaker's, its commands outlive the service that sent them: a vehicle answers
 * `latencyFor(id)` after the command was accepted (derived from the command id, not drawn), and a
 * status call for an id this process never saw asks `recall` (the service's own record of what
 * it sent here), so a command accepted before a restart finishes as it would have.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { SeededRandom } from './seeded-random.js';
import { answerCommand, type CommandAnswer } from './simulated-command-answers.js';
import type { SimulatedVehicle } from './simulated-vehicle.js';

export interface CloudFaults {
  /** Share of initiations answered 500 (the service maps it to `Failed to send command to the OEM.`). */
  initiateErrorRate: number;
  /** Share of initiations answered 200 without a status URL. */
  missingStatusUrlRate: number;
  /** Status calls that never answer (the connector times out). */
  hangStatus: boolean;
  /** Added delay of every status call, ms. */
  statusDelayMs: number;
  /** Added delay of every initiation, ms (a slow or, past the connector's timeout, hanging automaker). */
  initiateDelayMs: number;
}

export interface CloudOptions {
  /** Vehicle answer latency range, ms. */
  readonly latencyMs: readonly [number, number];
  readonly seed: number;
  readonly faults?: Partial<CloudFaults>;
  /**
   * The secret every request must present as `Authorization: Bearer …`; null for none. Required,
   * so that a keyless cloud is a decision: only a standalone `oem-sim` on loopback, reached as an
   * `http` OEM (which has no stored key), may be keyless.
   */
  readonly apiKey: string | null;
  /**
   * A command accepted before this process started (the in-process cloud of a restarted service):
   * its vehicle, command and when it was accepted, or undefined for an id never accepted here.
   */
  readonly recall?: ((id: string) => Promise<AcceptedCommand | undefined>) | undefined;
  /** Told of each command accepted (one line per command, as the service logs each request). */
  readonly logger?: Pick<Logger, 'info'> | undefined;
  /** How much it remembers (CLOUD_RETENTION by default). */
  readonly retention?: Partial<CloudRetention> | undefined;
}

/**
 * What the cloud remembers, so that a long-running demo's memory does not grow with every command.
 * A command (its job, its `Idempotency-Key`) is kept while the service may still repeat or poll it:
 * a repeat comes no later than the command's deadline, a poll no later than a few seconds past it.
 */
export interface CloudRetention {
  /** How long after it was accepted a command is kept: the longest deadline (`--command-timeout`) and a margin. */
  readonly ageMs: number;
  /** At most this many commands (and keys) are kept, the oldest dropped first. */
  readonly commands: number;
  /** `received` and `accepted` keep their last this many entries. */
  readonly log: number;
}

/** The longest `--command-timeout` (86,400 s) and 10 minutes: a repeat or a poll cannot come later. */
export const CLOUD_RETENTION: CloudRetention = Object.freeze({ ageMs: 86_400_000 + 600_000, commands: 100_000, log: 1000 });

export interface AcceptedCommand {
  readonly vin: string;
  readonly command: string;
  readonly acceptedAt: number;
}

interface Job {
  readonly vin: string;
  readonly command: string;
  /** When it was accepted (before a restart, for a recalled one): what its retention counts from. */
  readonly acceptedAt: number;
  readonly dueAt: number;
  answer?: CommandAnswer;
}

export const NO_FAULTS: CloudFaults = Object.freeze({ initiateErrorRate: 0, missingStatusUrlRate: 0, hangStatus: false, statusDelayMs: 0, initiateDelayMs: 0 });

export class SimulatedOemCloud {
  readonly #vehicle: (vin: string) => SimulatedVehicle | undefined;
  readonly #clock: Clock;
  readonly #options: CloudOptions;
  readonly #rng: SeededRandom;
  /** Commands by id, in the order they became known here (oldest first: what `#forget` drops). */
  readonly #jobs = new Map<string, Job>();
  readonly #server: Server;
  readonly #retention: CloudRetention;
  faults: CloudFaults;
  /** The last initiations received (`retention.log`), for tests and the operator's curiosity, with its `Idempotency-Key` if it had one. */
  readonly received: { id: string; vin: string; command: string; key: string | undefined }[] = [];
  /** The last initiations the vehicle acted on (`retention.log`): one per command id, however often it was sent. */
  readonly accepted: { id: string; vin: string; command: string; key: string | undefined }[] = [];
  /** The initiation each `Idempotency-Key` was first sent with, oldest first. */
  readonly #keys = new Map<string, { id: string; vin: string; command: string; at: number }>();
  /** Status calls for a command that arrived while another for the same command was unanswered. */
  overlappingPolls = 0;
  readonly #polling = new Set<string>();
  /** SHA-256 of the one acceptable Authorization header: digests compare in constant time at any length. */
  readonly #expectedAuthorization: Buffer | undefined;
  url = '';

  constructor(vehicle: (vin: string) => SimulatedVehicle | undefined, clock: Clock, options: CloudOptions) {
    this.#vehicle = vehicle;
    this.#clock = clock;
    this.#options = options;
    this.#rng = new SeededRandom(options.seed);
    this.faults = { ...NO_FAULTS, ...options.faults };
    this.#retention = { ...CLOUD_RETENTION, ...options.retention };
    this.#expectedAuthorization = options.apiKey === null ? undefined : sha256(`Bearer ${options.apiKey}`);
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => this.#send(res, 500, { error: 'internal' }));
    });
  }

  /** A fresh secret for `apiKey`: 256 bits from the CSPRNG. */
  static generateKey(): string {
    return randomBytes(32).toString('base64url');
  }

  /** Listens on `port` (0: any free one); rejects when it cannot (EADDRINUSE), and may be called again. */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => reject(error);
      this.#server.once('error', failed);
      this.#server.listen(port, host, () => {
        this.#server.off('error', failed);
        resolve();
      });
    });
    const { port: bound } = this.#server.address() as AddressInfo;
    this.url = `http://${host}:${bound}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #send(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  #authorized(req: IncomingMessage): boolean {
    if (this.#expectedAuthorization === undefined) return true;
    return timingSafeEqual(sha256(req.headers.authorization ?? ''), this.#expectedAuthorization);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Before anything is read or recorded: a refused caller starts nothing and learns nothing.
    if (!this.#authorized(req)) {
      res.setHeader('www-authenticate', 'Bearer');
      return this.#send(res, 401, { error: 'unauthorized' });
    }
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method === 'POST' && path === '/commands') return this.#initiate(req, res);
    const m = /^\/commands\/([0-9a-f-]{36})$/.exec(path);
    if (req.method === 'GET' && m) {
      const id = m[1]!;
      if (this.#polling.has(id)) this.overlappingPolls += 1;
      this.#polling.add(id);
      try {
        return await this.#status(id, res);
      } finally {
        this.#polling.delete(id);
      }
    }
    this.#send(res, 404, { error: 'not found' });
  }

  async #initiate(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) {
      text += String(chunk);
      if (text.length > 16_384) return this.#send(res, 413, { error: 'too large' });
    }
    let body: { id?: unknown; vin?: unknown; command?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return this.#send(res, 400, { error: 'invalid_input' });
    }
    if (typeof body.id !== 'string' || !/^[0-9a-f-]{36}$/.test(body.id) || typeof body.vin !== 'string' || typeof body.command !== 'string') {
      return this.#send(res, 400, { error: 'invalid_input' });
    }
    const request = { id: body.id, vin: body.vin, command: body.command };
    const key = idempotencyKey(req);
    this.#log(this.received, { ...request, key });
    if (this.faults.initiateDelayMs > 0) await new Promise((r) => setTimeout(r, this.faults.initiateDelayMs));
    const first = key === undefined ? undefined : this.#keys.get(key);
    if (first !== undefined) {
      // A repeat (the service's, after a crash): the first answer again, nothing run twice.
      if (first.id !== request.id || first.vin !== request.vin || first.command !== request.command) return this.#send(res, 422, { error: 'invalid_input' });
      return this.#send(res, 202, { status_url: `${this.url}/commands/${first.id}` });
    }
    if (this.#rng.chance(this.faults.initiateErrorRate)) return this.#send(res, 500, { error: 'internal' });
    if (!this.#vehicle(body.vin)) return this.#send(res, 404, { error: 'unknown vehicle' });
    if (this.#rng.chance(this.faults.missingStatusUrlRate)) return this.#send(res, 200, {});
    if (!this.#jobs.has(body.id)) {
      const now = this.#clock.now();
      this.#forget(now);
      this.#jobs.set(body.id, { vin: body.vin, command: body.command, acceptedAt: now, dueAt: now + this.latencyFor(body.id) });
      if (key !== undefined) this.#keys.set(key, { ...request, at: now });
      this.#log(this.accepted, { ...request, key });
      this.#options.logger?.info({ command: body.id, vin: body.vin, name: body.command }, 'simulated automaker accepted a command');
    }
    this.#send(res, 202, { status_url: `${this.url}/commands/${body.id}` });
  }

  async #status(id: string, res: ServerResponse): Promise<void> {
    if (this.faults.hangStatus) return; // never answers; the connector's timeout ends the call
    if (this.faults.statusDelayMs > 0) await new Promise((r) => setTimeout(r, this.faults.statusDelayMs));
    const job = this.#jobs.get(id) ?? await this.#recall(id);
    if (!job) return this.#send(res, 404, { error: 'unknown command' });
    const vehicle = this.#vehicle(job.vin);
    if (!vehicle || vehicle.profile === 'offline' || this.#clock.now() < job.dueAt) return this.#send(res, 200, { status: 'pending' });
    job.answer ??= answerCommand(vehicle, job.command, job.dueAt, this.#rng);
    this.#send(res, 200, job.answer);
  }

  /** How long the vehicle takes to answer command `id`: the same for an id whoever asks, within `latencyMs`. */
  latencyFor(id: string): number {
    const [min, max] = this.#options.latencyMs;
    const draw = createHash('sha256').update(`${this.#options.seed}:${id}`).digest().readUInt32BE(0) / 2 ** 32;
    return Math.round(min + draw * (max - min));
  }

  /** A command accepted by this cloud before this process started, known again from now on. */
  async #recall(id: string): Promise<Job | undefined> {
    const accepted = await this.#options.recall?.(id);
    if (!accepted) return undefined;
    // Another status call may have recalled it meanwhile: one job per id, answered once.
    let job = this.#jobs.get(id);
    if (!job) {
      this.#forget(this.#clock.now());
      job = { vin: accepted.vin, command: accepted.command, acceptedAt: accepted.acceptedAt, dueAt: accepted.acceptedAt + this.latencyFor(id) };
      this.#jobs.set(id, job);
    }
    return job;
  }

  /**
   * Drops what no repeat or poll can still ask for (accepted `retention.ageMs` ago), and the oldest
   * beyond `retention.commands`, before one more is added. Maps iterate in insertion order, so
   * each drop is the first entry: a command's lifetime costs one insertion and one deletion. (A
   * recalled command joins at the end with an older acceptance: it is dropped a little late.)
   */
  #forget(now: number): void {
    const before = now - this.#retention.ageMs;
    const limit = this.#retention.commands - 1;
    for (const [id, job] of this.#jobs) {
      if (job.acceptedAt >= before && this.#jobs.size <= limit) break;
      this.#jobs.delete(id);
    }
    for (const [key, first] of this.#keys) {
      if (first.at >= before && this.#keys.size <= limit) break;
      this.#keys.delete(key);
    }
  }

  /** Appends to a log that keeps its last `retention.log` entries. */
  #log<T>(log: T[], entry: T): void {
    log.push(entry);
    if (log.length > this.#retention.log) log.splice(0, log.length - this.#retention.log);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The request's `Idempotency-Key`: 1–255 printable ASCII characters, or none. */
function idempotencyKey(req: IncomingMessage): string | undefined {
  const value = req.headers['idempotency-key'];
  return typeof value === 'string' && /^[\x20-\x7e]{1,255}$/.test(value) ? value : undefined;
}
