import type { TextDelta, TextEngine } from "../inference/text";

/**
 * A model with several routes: each is tried in order, and the next one only while the client
 * has received nothing — a whole answer that failed, or a stream that failed before its first
 * piece. Once a piece has reached the client, a failure ends the stream (it cannot be retried
 * elsewhere without repeating text).
 */
export function fallbackEngine(routes: readonly TextEngine[]): TextEngine {
  return {
    async complete(prompt, signal) {
      let lastError: unknown;
      for (const route of routes) {
        try {
          return await route.complete(prompt, signal);
        } catch (error) {
          lastError = error;
          if (signal.aborted) break;
        }
      }
      throw lastError;
    },
    async *stream(prompt, signal): AsyncIterable<TextDelta> {
      let lastError: unknown;
      for (const route of routes) {
        let yielded = false;
        try {
          for await (const delta of route.stream(prompt, signal)) {
            yielded = true;
            yield delta;
          }
          return;
        } catch (error) {
          if (yielded || signal.aborted) throw error;
          lastError = error;
        }
      }
      throw lastError;
    },
  };
}
