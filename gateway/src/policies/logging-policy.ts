import { newId } from "../crypto";
import type { NewLogEntry, StoredApiKey } from "../store/types";

/** What happened to one model request, before the logging policy decides what to keep. */
export interface RequestOutcome {
  model: string;
  status: number;
  costMicros: bigint;
  input: string;
  /** The generated text; `null` when the model did not run. */
  output: string | null;
  /** The request's fields not carried to the model. */
  droppedFields: readonly string[];
}

/**
 * The log row of a request. Every request gets one (key, model, status, cost); its content is kept
 * only when the key's logging policy says so, and the row lives `retentionDays`.
 */
export function logEntryFor(key: StoredApiKey, outcome: RequestOutcome, now: number): NewLogEntry {
  return {
    id: newId("log"),
    ownerId: key.ownerId,
    keyId: key.id,
    model: outcome.model,
    status: outcome.status,
    costMicros: outcome.costMicros,
    createdAt: now,
    requestInput: key.loggingPolicy.storeRequest ? outcome.input : null,
    responseText: key.loggingPolicy.storeResponse ? outcome.output : null,
    // Charged to the team the key is in as this request reserved: a later move leaves it there.
    teamId: key.teamId,
    // Field paths, never content: kept whatever the logging policy says.
    droppedFields: outcome.droppedFields,
  };
}
