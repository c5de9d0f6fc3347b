/** The Vercel AI SDK (`ai` with `@ai-sdk/openai` and `@ai-sdk/anthropic`): generateText / streamText with a tool and a step limit, and embed. */
import { embed, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";

function modelOf(job, api, model) {
  if (api === "anthropic") return createAnthropic({ baseURL: `${job.baseUrl}/v1`, apiKey: job.key })(model);
  const openai = createOpenAI({ baseURL: `${job.baseUrl}/v1`, apiKey: job.key });
  return api === "chat" ? openai.chat(model) : openai.responses(model);
}

export async function runVercel(job, testCase, api) {
  if (testCase.embed) {
    const openai = createOpenAI({ baseURL: `${job.baseUrl}/v1`, apiKey: job.key });
    const { embedding, usage } = await embed({ model: openai.embedding(testCase.model), value: "sunny in Paris", maxRetries: 0 });
    return { dimensions: embedding.length, usage };
  }
  const options = {
    model: modelOf(job, api, testCase.model),
    prompt: "Paris",
    tools: { [job.lookup.name]: tool({ description: job.lookup.description, inputSchema: jsonSchema(job.lookup.parameters), execute: async (input) => job.lookup.run(input) }) },
    stopWhen: stepCountIs(3),
    maxRetries: 0,
  };
  if (!testCase.stream) {
    const result = await generateText(options);
    return { text: result.text, steps: result.steps.length };
  }
  let failure;
  const result = streamText({ ...options, onError: ({ error }) => (failure = error) });
  let text = "";
  for await (const piece of result.textStream) text += piece;
  if (failure) throw failure;
  return { text, steps: (await result.steps).length };
}
