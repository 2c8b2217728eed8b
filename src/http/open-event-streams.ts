/**
 * The event streams open in this process (GET /events/stream): counted per application for the
 * cap, ended together when the server closes, and looked at again while they are open. A stream
 * outlives the request check that let it open by up to its whole length (30 minutes), so every
 * `recheckMs` each open stream's caller is checked again as a new request would be, and a stream
 * whose check fails (`admin app disable`, `admin app rotate-secret`, the application deleted) is
 * ended. The check reads the application through the registry cache: while nothing in the
 * registry changed, a sweep costs no query however many streams are open; after a change, one
 * read per application.
 */

/** One open stream, as the route gave it. */
export interface OpenStream {
  readonly applicationId: string;
  /** The request's Authorization header, checked again by each sweep. */
  readonly authorization: string | undefined;
  /** Ends the stream; `revoked` when its caller's check failed. */
  end(reason: 'revoked' | 'closing'): void;
}

export interface OpenEventStreamsOptions {
  readonly perApplication: number;
  readonly recheckMs: number;
  /** Whether a request with this Authorization header would be let through now. */
  readonly stillAuthenticated: (authorization: string | undefined) => Promise<boolean>;
  /** The check could not be made (the database is away): the streams stay, the next sweep tries again. */
  readonly onError: (error: unknown) => void;
}

export class OpenEventStreams {
  readonly #options: OpenEventStreamsOptions;
  readonly #streams = new Set<OpenStream>();
  readonly #byApplication = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #sweeping = false;

  constructor(options: OpenEventStreamsOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#streams.size;
  }

  /** Counts a stream in; false (and nothing counted) when its application holds as many as allowed. */
  add(stream: OpenStream): boolean {
    const held = this.#byApplication.get(stream.applicationId) ?? 0;
    if (held >= this.#options.perApplication) return false;
    this.#byApplication.set(stream.applicationId, held + 1);
    this.#streams.add(stream);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.#sweep(), this.#options.recheckMs);
      // A sweep never keeps the process alive: the server's close ends the streams.
      this.#timer.unref();
    }
    return true;
  }

  /** Counts a stream out (it ended); once only. */
  remove(stream: OpenStream): void {
    if (!this.#streams.delete(stream)) return;
    const left = (this.#byApplication.get(stream.applicationId) ?? 1) - 1;
    if (left > 0) this.#byApplication.set(stream.applicationId, left);
    else this.#byApplication.delete(stream.applicationId);
    if (this.#streams.size === 0) this.#stopSweeping();
  }

  /** Ends every stream (the server is closing: it would otherwise wait for them). */
  endAll(): void {
    this.#stopSweeping();
    for (const stream of [...this.#streams]) stream.end('closing');
  }

  #stopSweeping(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Checks each distinct caller once and ends the streams of those refused. One sweep at a time. */
  async #sweep(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const byCaller = new Map<string | undefined, OpenStream[]>();
      for (const stream of this.#streams) {
        const same = byCaller.get(stream.authorization);
        if (same === undefined) byCaller.set(stream.authorization, [stream]);
        else same.push(stream);
      }
      for (const [authorization, streams] of byCaller) {
        if (await this.#options.stillAuthenticated(authorization)) continue;
        for (const stream of streams) if (this.#streams.has(stream)) stream.end('revoked');
      }
    } catch (error) {
      this.#options.onError(error);
    } finally {
      this.#sweeping = false;
    }
  }
}
