import { Readable } from "node:stream";
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One server-sent event: its `event:` name when it has one, and its data. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

/**
 * The events of a provider's `text/event-stream` body, as they arrive (parsed by
 * eventsource-parser). A Node stream (undici's answer body) is read through its `data` events: a
 * relayed stream passes each event on as it comes, and reading a chunk through the stream's own
 * async iterator and a generator would cost each event more than passing it on.
 */
export function serverSentEvents(body: AsyncIterable<Buffer | string>): AsyncIterable<ServerSentEvent> {
  if (body instanceof Readable) return { [Symbol.asyncIterator]: () => new StreamEvents(body) };
  return eventsOfChunks(body);
}

/** A feed of text/event-stream chunks that collects the events they complete. */
function eventFeed() {
  const decoder = new TextDecoder();
  const ready: ServerSentEvent[] = [];
  const parser = createParser({ onEvent: (message: EventSourceMessage) => ready.push({ event: message.event, data: message.data }) });
  return {
    ready,
    feed: (chunk: Buffer | string) => parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true })),
    /** The stream ended: an event that lacked only its blank line counts. */
    end: () => parser.reset({ consume: true }),
  };
}

async function* eventsOfChunks(body: AsyncIterable<Buffer | string>): AsyncIterable<ServerSentEvent> {
  const events = eventFeed();
  for await (const chunk of body) {
    events.feed(chunk);
    if (events.ready.length === 0) continue;
    yield* events.ready.splice(0);
  }
  events.end();
  yield* events.ready;
}

/**
 * Events of a Node stream. The stream is paused while events it delivered wait to be read (the
 * reader's pace reaches the provider: backpressure) and resumed once they are; an error is
 * thrown to the reader after the events that came before it; `return` (the reader stopped)
 * destroys the stream, which ends the provider's answer.
 */
class StreamEvents implements AsyncIterator<ServerSentEvent> {
  readonly #body: Readable;
  readonly #events = eventFeed();
  /** The next unread event in `#events.ready`. */
  #next = 0;
  #ended = false;
  #error: unknown;
  #waiting: { resolve: (result: IteratorResult<ServerSentEvent>) => void; reject: (error: unknown) => void } | undefined;

  constructor(body: Readable) {
    this.#body = body;
    body.on("data", (chunk: Buffer | string) => {
      this.#events.feed(chunk);
      this.#wake();
      // Events left unread: read no further until they are (the reader waiting took the first).
      if (this.#unread() > 0) body.pause();
    });
    body.once("end", () => {
      this.#events.end();
      this.#finish();
    });
    body.once("error", (error) => {
      this.#error = error;
      this.#finish();
    });
    // Destroyed without an error (an abort handled elsewhere): the events end here.
    body.once("close", () => this.#finish());
  }

  next(): Promise<IteratorResult<ServerSentEvent>> {
    if (this.#unread() > 0) return Promise.resolve({ value: this.#take(), done: false });
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<ServerSentEvent>> {
    this.#ended = true;
    this.#body.destroy();
    return Promise.resolve({ value: undefined, done: true });
  }

  #unread(): number {
    return this.#events.ready.length - this.#next;
  }

  #take(): ServerSentEvent {
    const event = this.#events.ready[this.#next++]!;
    if (this.#unread() === 0) {
      this.#events.ready.length = 0;
      this.#next = 0;
      if (!this.#ended && this.#body.isPaused()) this.#body.resume();
    }
    return event;
  }

  #finish(): void {
    this.#ended = true;
    this.#wake();
  }

  /** Hands the reader waiting for an event what there is: an event, the error, or the end. */
  #wake(): void {
    const waiting = this.#waiting;
    if (!waiting) return;
    if (this.#unread() > 0) {
      this.#waiting = undefined;
      waiting.resolve({ value: this.#take(), done: false });
    } else if (this.#error !== undefined) {
      this.#waiting = undefined;
      waiting.reject(this.#error);
    } else if (this.#ended) {
      this.#waiting = undefined;
      waiting.resolve({ value: undefined, done: true });
    }
  }
}
