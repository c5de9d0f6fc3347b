import type { TextUsage } from "./text";

/**
 * The engines behind the non-text families: what a model of each family does, whoever runs it
 * (a built-in model here, an upstream provider elsewhere). Each reports its usage in tokens, the
 * one unit every price is in (docs/api/media.md#media-endpoints-what-they-share says what a token is per family).
 */

export interface EmbeddingEngine {
  /** The size of its vectors: a request may ask for fewer (`dimensions`), never more. */
  readonly dimensions: number;
  embed(texts: string[], dimensions: number | undefined): Promise<{ vectors: Float32Array[]; usage: TextUsage }>;
}

/** Per moderation category (the contract's MODERATION_CATEGORIES): flagged or not, and a score from 0 to 1. */
export interface ModerationVerdict {
  categories: Record<string, boolean>;
  scores: Record<string, number>;
}

export interface ModerationEngine {
  classify(texts: string[]): Promise<{ verdicts: ModerationVerdict[]; usage: TextUsage }>;
}

export interface ImageEngine {
  /** PNG images of `width`×`height` pixels. */
  generate(prompt: string, count: number, width: number, height: number): Promise<{ images: Buffer[]; usage: TextUsage }>;
}

export interface SpeechEngine {
  synthesize(text: string, voice: string, speed: number, format: "wav" | "pcm"): Promise<{ audio: Buffer; contentType: string; usage: TextUsage }>;
}

export interface TranscriptionEngine {
  /** The length of the audio in seconds, read before transcribing (it bounds the cost), or an error for audio it cannot read. */
  durationSeconds(audio: Buffer): number;
  transcribe(audio: Buffer, language: string | undefined): Promise<{ text: string; usage: TextUsage }>;
}

/** The engine of each media family's built-in models. */
export interface MediaEngines {
  embeddings: EmbeddingEngine;
  moderation: ModerationEngine;
  images: ImageEngine;
  speech: SpeechEngine;
  transcription: TranscriptionEngine;
}
