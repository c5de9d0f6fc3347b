import { promptText, type Conversation } from "./text";
import { countTokens } from "./tokens";

/**
 * What one image counts as input before a provider says: above what any provider this gateway
 * speaks to counts for one image today (Anthropic's largest images are about 1,600 tokens, OpenAI's
 * 765 at high detail for its 4o models), so a reservation holds it (docs/api/models.md#model-requests-what-every-family-shares).
 */
export const IMAGE_INPUT_TOKENS = 2_000;

/** Input tokens of a conversation by the gateway's rule: its prompt text, its tool definitions, and each image's allowance. */
export function estimateConversationTokens(conversation: Conversation): number {
  let images = 0;
  for (const turn of conversation.turns) {
    for (const part of turn.parts) {
      if (part.type === "image") images++;
      else if (part.type === "tool_result") images += part.content.filter((piece) => piece.type === "image").length;
    }
  }
  const tools = conversation.tools.length === 0 ? 0 : countTokens(JSON.stringify(conversation.tools));
  return countTokens(promptText(conversation)) + tools + images * IMAGE_INPUT_TOKENS;
}

/** Keys under which a relayed body holds text a model reads. */
const TEXT_KEYS = new Set(["content", "text", "input", "instructions", "system", "arguments", "output", "prompt"]);
/** Part types that are images, on each wire. */
export const IMAGE_TYPES = new Set(["image_url", "input_image", "image"]);

/**
 * A request relayed as sent, read only as far as metering needs: its text (for the request log and
 * the input estimate), its tool definitions and its images, on any wire, without knowing its shape.
 */
export function summariseRelayedRequest(body: Record<string, unknown>): { text: string; inputTokens: number } {
  const texts: string[] = [];
  let images = 0;
  const walk = (value: unknown, underText: boolean): void => {
    if (typeof value === "string") {
      if (underText) texts.push(value);
      return;
    }
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, underText);
      return;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.type === "string" && IMAGE_TYPES.has(record.type)) {
      images++;
      return;
    }
    for (const [key, child] of Object.entries(record)) if (key !== "tools") walk(child, TEXT_KEYS.has(key) || (underText && key !== "type"));
  };
  // Top-level fields other than the text ones (`model`, settings) are not walked as text.
  walk(body, false);
  const text = texts.join("\n");
  const tools = Array.isArray(body.tools) ? countTokens(JSON.stringify(body.tools)) : 0;
  return { text, inputTokens: countTokens(text) + tools + images * IMAGE_INPUT_TOKENS };
}
