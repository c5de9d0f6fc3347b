/**
 * The upstream every path of the gateway benchmark ends at: a bare `node:http` server speaking
 * the OpenAI Chat Completions wire with a fixed answer, plain or streamed. It does the least a
 * model server can (read the body, parse it, write the answer), so whatever a path adds on top of
 * it is that path's own cost.
 */
import { createServer, type Server } from "node:http";

/** The answer's text, streamed as one chunk per token. */
export const ANSWER_TOKENS = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."];
const USAGE = { prompt_tokens: 12, completion_tokens: ANSWER_TOKENS.length, total_tokens: 12 + ANSWER_TOKENS.length };

const WHOLE = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "bench-upstream",
  choices: [{ index: 0, message: { role: "assistant", content: ANSWER_TOKENS.join(""), refusal: null }, finish_reason: "stop", logprobs: null }],
  usage: USAGE,
});

const chunk = (delta: object, finishReason: string | null, usage?: object) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "bench-upstream", choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }], ...(usage ? { usage } : {}) })}\n\n`;

/** The stream's events in order: the role, one chunk per token, the finish, the usage (when asked), [DONE]. */
function streamEvents(includeUsage: boolean): string[] {
  const events = [chunk({ role: "assistant", content: "" }, null), ...ANSWER_TOKENS.map((token) => chunk({ content: token }, null)), chunk({}, "stop")];
  if (includeUsage) {
    events.push(`data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "bench-upstream", choices: [], usage: USAGE })}\n\n`);
  }
  events.push("data: [DONE]\n\n");
  return events;
}

/** Starts the upstream on an ephemeral loopback port. Events of a stream go out one per event-loop turn, as a model's tokens do. */
export async function startChatUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { stream?: boolean; stream_options?: { include_usage?: boolean } };
      if (!body.stream) {
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(WHOLE) });
        response.end(WHOLE);
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const events = streamEvents(body.stream_options?.include_usage === true);
      const next = (index: number) => {
        if (index === events.length - 1) return response.end(events[index]);
        response.write(events[index]);
        setImmediate(next, index + 1);
      };
      next(0);
    });
  });
  // Idle connections stay open a minute, as providers' load balancers keep them: a gateway slowed
  // down (under valgrind, bench/lib/instructions.ts) must not meet a connection closed under it.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1`, server };
}
