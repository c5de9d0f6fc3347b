/** The model API families' wire schemas (OpenAI and Anthropic wires), one file per family. */
export * from "./chat-completions";
export * from "./messages";
export * from "./responses";
export * from "./text";
export * from "./audio";
export * from "./embeddings";
export * from "./images";
export * from "./moderations";
