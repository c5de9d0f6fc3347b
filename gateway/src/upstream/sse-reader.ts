/**
 * Reads a server-sent event stream from an upstream: `{ event, data }` per event. Written here
 * rather than taken from `eventsource-parser` because that package is ESM-only and the gateway
 * is CommonJS; the format needs little: events end at a blank line, `data:` lines join with a
 * newline, comment lines (`:`) and other fields are skipped.
 */
export async function* readServerSentEvents(body: AsyncIterable<Buffer | string>): AsyncIterable<{ event: string | undefined; data: string }> {
  const decoder = new TextDecoder();
  let buffered = "";
  let event: string | undefined;
  let data: string[] = [];
  for await (const chunk of body) {
    buffered += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.search(/\r?\n/)) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + (buffered[newline] === "\r" ? 2 : 1));
      if (line === "") {
        if (data.length > 0) yield { event, data: data.join("\n") };
        event = undefined;
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line[5] === " " ? 6 : 5));
      } else if (line.startsWith("event:")) {
        event = line.slice(line[6] === " " ? 7 : 6);
      }
    }
  }
  if (data.length > 0) yield { event, data: data.join("\n") };
}
