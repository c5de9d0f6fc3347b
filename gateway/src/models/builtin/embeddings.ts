import { createHash } from "node:crypto";
import type { EmbeddingEngine } from "../../inference/engines";
import { countTokens } from "../../inference/tokens";

const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;
/** Dimensions of the built-in embedder's vectors, unless a request asks for fewer. */
export const HASH_EMBEDDING_DIMENSIONS = 256;

/**
 * A hashing embedder: every token (lower-cased) is hashed to a dimension and a sign, counts are
 * summed and the vector is scaled to unit length. Deterministic, and texts sharing words land
 * near each other, which is what tests and demos of retrieval need from a stand-in.
 */
export const hashingEmbedder: EmbeddingEngine = {
  dimensions: HASH_EMBEDDING_DIMENSIONS,
  async embed(texts, dimensions = HASH_EMBEDDING_DIMENSIONS) {
    const size = dimensions;
    const vectors = texts.map((text) => {
      const vector = new Float32Array(size);
      for (const [token] of text.toLowerCase().matchAll(TOKEN)) {
        const digest = createHash("sha256").update(token).digest();
        vector[digest.readUInt32LE(0) % size]! += digest[4]! & 1 ? 1 : -1;
      }
      const norm = Math.hypot(...vector);
      if (norm > 0) for (let i = 0; i < size; i++) vector[i]! /= norm;
      return vector;
    });
    return { vectors, usage: { inputTokens: texts.reduce((sum, text) => sum + countTokens(text), 0), outputTokens: 0 } };
  },
};
