import type { RelayRoute } from "./relay";
import type { TextEngine } from "./text";
import type { TranslationTarget } from "./translation";

/**
 * One way a chat model is served, tried in order: a built-in engine, or a provider — relayed as
 * sent when it speaks the client's wire, through its translated engine otherwise.
 */
export type TextRoute =
  | { kind: "builtin"; engine: TextEngine; target: TranslationTarget }
  | { kind: "provider"; relay: RelayRoute; engine: TextEngine; target: TranslationTarget };
