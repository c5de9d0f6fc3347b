/** LangChain JS (`@langchain/openai`, `@langchain/anthropic`): a `bindTools` loop — invoke, run the tool calls, send ToolMessages, invoke again — whole or streamed, and embeddings. */
import { AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI, OpenAIEmbeddings } from "@langchain/openai";

function chatModelOf(job, api, model, stream) {
  if (api === "anthropic") return new ChatAnthropic({ model, apiKey: job.key, anthropicApiUrl: job.baseUrl, maxRetries: 0, streaming: stream });
  return new ChatOpenAI({ model, apiKey: job.key, configuration: { baseURL: `${job.baseUrl}/v1` }, maxRetries: 0, streaming: stream, useResponsesApi: api === "openai-responses" });
}

async function ask(model, messages, stream) {
  if (!stream) return model.invoke(messages);
  let whole;
  for await (const chunk of await model.stream(messages)) whole = whole === undefined ? chunk : whole.concat(chunk);
  return whole ?? new AIMessageChunk("");
}

export async function runLangChain(job, testCase, api) {
  if (testCase.embed) {
    const embeddings = new OpenAIEmbeddings({ model: testCase.model, apiKey: job.key, configuration: { baseURL: `${job.baseUrl}/v1` }, maxRetries: 0 });
    const vectors = await embeddings.embedDocuments(["sunny in Paris", "rain in Oslo"]);
    return { dimensions: vectors[0].length, count: vectors.length };
  }
  const tools = [{ type: "function", function: { name: job.lookup.name, description: job.lookup.description, parameters: job.lookup.parameters } }];
  const model = chatModelOf(job, api, testCase.model, testCase.stream).bindTools(tools);
  const messages = [new HumanMessage("Paris")];
  for (let step = 0; step < 3; step++) {
    const answer = await ask(model, messages, testCase.stream);
    messages.push(answer);
    if (!answer.tool_calls?.length) return { text: typeof answer.content === "string" ? answer.content : answer.content.map((part) => part.text ?? "").join(""), steps: step + 1 };
    for (const call of answer.tool_calls) messages.push(new ToolMessage({ content: job.lookup.run(call.args), tool_call_id: call.id, name: call.name }));
  }
  throw new Error("the loop did not end within 3 steps");
}
