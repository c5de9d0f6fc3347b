import { promptText, type TextPrompt, type TextUsage } from "../inference/text";
import { countTokens } from "../inference/tokens";

/**
 * The usage an upstream reported, each count it left out taken at the request's bound: the
 * prompt's tokens as the gateway counts them, and the most output tokens the request allowed.
 * Those are the figures the reservation was made from, so a provider that reports no usage is
 * charged the reservation — never nothing (docs/api.md, "Metering").
 */
export function reportedUsage(prompt: TextPrompt, inputTokens: number | undefined, outputTokens: number | undefined): TextUsage {
  return {
    inputTokens: inputTokens ?? countTokens(promptText(prompt)),
    outputTokens: outputTokens ?? prompt.maxOutputTokens,
  };
}
