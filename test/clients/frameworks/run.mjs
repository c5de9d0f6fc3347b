/**
 * Drives the agent frameworks teams put in front of a gateway — the Vercel AI SDK, LangChain JS
 * and the OpenAI Agents SDK — against a running gateway, as their users would: a tool loop
 * (the model calls `lookup`, the framework runs it and sends the result back, the model answers),
 * whole and streamed, and embeddings. Plain ESM because the Vercel AI SDK ships as ESM only;
 * frameworks.test.ts runs it in a child process and asserts on what it prints.
 *
 *   node run.mjs '{"baseUrl":"http://127.0.0.1:PORT","key":"gk_…","cases":[{"client":"vercel-chat","model":"tools-1","stream":false}]}'
 *
 * Prints one JSON line: per case, the final text, the tool calls the framework ran, or the error.
 */
import { runVercel } from "./vercel-ai.mjs";
import { runLangChain } from "./langchain.mjs";
import { runAgents } from "./openai-agents.mjs";

/** The tool every loop declares: what the framework runs when the model calls it. */
export const LOOKUP = {
  name: "lookup",
  description: "Looks up the weather of a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  run: ({ city }) => `sunny in ${city}`,
};

const RUNNERS = {
  "vercel-chat": (job, c) => runVercel(job, c, "chat"),
  "vercel-responses": (job, c) => runVercel(job, c, "responses"),
  "vercel-anthropic": (job, c) => runVercel(job, c, "anthropic"),
  "langchain-openai": (job, c) => runLangChain(job, c, "openai"),
  "langchain-openai-responses": (job, c) => runLangChain(job, c, "openai-responses"),
  "langchain-anthropic": (job, c) => runLangChain(job, c, "anthropic"),
  "agents": (job, c) => runAgents(job, c),
};

const job = JSON.parse(process.argv[2]);
const results = [];
for (const testCase of job.cases) {
  const calls = [];
  const lookup = { ...LOOKUP, run: (input) => (calls.push(input), LOOKUP.run(input)) };
  if (process.env.FRAMEWORKS_TRACE) process.stderr.write(`case ${JSON.stringify(testCase)}\n`);
  try {
    const outcome = await RUNNERS[testCase.client]({ ...job, lookup }, testCase);
    results.push({ ...testCase, ok: true, calls, ...outcome });
  } catch (error) {
    results.push({ ...testCase, ok: false, calls, error: String(error?.message ?? error).slice(0, 2000), status: error?.status ?? error?.statusCode });
  }
}
process.stdout.write(JSON.stringify(results) + "\n");
