import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One server-sent event: its `event:` name when it has one, and its data. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

/** The events of a provider's `text/event-stream` body, as they arrive (parsed by eventsource-parser). */
export async function* serverSentEvents(body: AsyncIterable<Buffer | string>): AsyncIterable<ServerSentEvent> {
  let ready: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => ready.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    if (ready.length === 0) continue;
    const batch = ready;
    ready = [];
    for (const message of batch) yield { event: message.event, data: message.data };
  }
  parser.reset({ consume: true });
  for (const message of ready) yield { event: message.event, data: message.data };
}
