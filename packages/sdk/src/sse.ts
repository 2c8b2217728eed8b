/**
 * Server-Sent Events read from a fetch body (the WHATWG "event stream interpretation"): fields
 * `id`, `event`, `data` (lines joined by \n), `retry`; comment lines ignored; an event ends at a
 * blank line. EventSource itself cannot send an Authorization header, hence this.
 */

export interface ServerSentEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

export interface SseState {
  /** The last `id:` seen (what to send as Last-Event-ID on reconnect). */
  lastEventId: string | undefined;
  /** The last `retry:` seen, ms. */
  retryMs: number | undefined;
}

/** `heard` is called on every chunk (comments and keep-alives included). */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>, state: SseState, heard: () => void = () => {}): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  // Committed to state.lastEventId only when its event is complete, so that a stream cut in the
  // middle of an event resumes before it, not after it.
  let id = state.lastEventId;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      heard();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: RegExpExecArray | null;
      const lines = /\r\n|\r|\n/g;
      let start = 0;
      // A lone \r at the end may be the first half of \r\n: keep it for the next chunk.
      while ((newline = lines.exec(buffer)) !== null && !(newline[0] === '\r' && newline.index === buffer.length - 1 && !done)) {
        const line = buffer.slice(start, newline.index);
        start = newline.index + newline[0].length;
        if (line === '') {
          state.lastEventId = id;
          if (data.length > 0) yield { id, event: event === '' ? 'message' : event, data: data.join('\n') };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'data') data.push(text);
        else if (field === 'event') event = text;
        else if (field === 'id' && !text.includes('\0')) id = text;
        else if (field === 'retry' && /^\d+$/.test(text)) state.retryMs = Number(text);
      }
      buffer = buffer.slice(start);
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
