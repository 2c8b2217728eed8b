/**
 * A tracker connection's frames, handled one at a time in the order they came, with the socket
 * paused while any is handled: a slow store holds the device back instead of its frames piling up
 * in memory. When the queue runs dry the connection's `idle` hook runs (it writes the commands
 * that waited for the frames in hand) and the socket reads again. Shared by the TCP protocols.
 */
import type { Socket } from 'node:net';

export interface FrameQueueHooks {
  /** Whether the connection is gone: the frames left are not handled. */
  closed(): boolean;
  /** The queue ran dry (and the connection is still open). */
  idle(): void;
  /** A handler threw: the connection decides what that costs (it closes). */
  failed(error: unknown): void;
}

export class FrameQueue<F> {
  readonly #socket: Socket;
  readonly #handle: (frame: F) => Promise<void>;
  readonly #hooks: FrameQueueHooks;
  #frames: F[] = [];
  #working = false;

  constructor(socket: Socket, handle: (frame: F) => Promise<void>, hooks: FrameQueueHooks) {
    this.#socket = socket;
    this.#handle = handle;
    this.#hooks = hooks;
  }

  /** A frame is being handled. */
  get working(): boolean {
    return this.#working;
  }

  /** A frame is being handled or waits. */
  get busy(): boolean {
    return this.#working || this.#frames.length > 0;
  }

  push(frames: readonly F[]): void {
    for (const frame of frames) this.#frames.push(frame);
    if (this.#frames.length > 0 && !this.#working) void this.#work();
  }

  /** Drops the frames waiting (the connection closed). */
  clear(): void {
    this.#frames = [];
  }

  async #work(): Promise<void> {
    this.#working = true;
    this.#socket.pause();
    try {
      while (this.#frames.length > 0 && !this.#hooks.closed()) await this.#handle(this.#frames.shift()!);
    } catch (error) {
      this.#hooks.failed(error);
    } finally {
      this.#working = false;
      if (!this.#hooks.closed()) {
        this.#hooks.idle();
        this.#socket.resume();
      }
    }
  }
}
