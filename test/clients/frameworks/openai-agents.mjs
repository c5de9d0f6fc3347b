/** The OpenAI Agents SDK (`@openai/agents`): an Agent with a function tool, `run()` whole or streamed, on the Responses API (its default) or Chat Completions. */
import OpenAI from "openai";
import { Agent, OpenAIProvider, Runner, tool } from "@openai/agents";

export async function runAgents(job, testCase) {
  const client = new OpenAI({ apiKey: job.key, baseURL: `${job.baseUrl}/v1`, maxRetries: 0 });
  const provider = new OpenAIProvider({ openAIClient: client, useResponses: testCase.api !== "chat" });
  const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
  const lookup = tool({
    name: job.lookup.name,
    description: job.lookup.description,
    parameters: job.lookup.parameters,
    strict: true,
    execute: async (input) => job.lookup.run(input),
  });
  const agent = new Agent({ name: "weather", instructions: "Answer with the weather.", model: testCase.model, tools: [lookup], toolUseBehavior: "run_llm_again" });
  if (!testCase.stream) {
    const result = await runner.run(agent, "Paris", { maxTurns: 3 });
    return { text: result.finalOutput };
  }
  const result = await runner.run(agent, "Paris", { maxTurns: 3, stream: true });
  let text = "";
  for await (const piece of result.toTextStream()) text += piece;
  await result.completed;
  if (result.error) throw result.error;
  return { text };
}
