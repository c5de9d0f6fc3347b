import { dayOf } from "@gateway-keys/contract";
import type { NewLogEntry, RequestOutcome } from "../../metering/interfaces";
import type { Statements } from "./statements";

interface UsageCount {
  keyId: string;
  model: string;
  ownerId: string;
  total: number;
  succeeded: number;
  rejected: number;
  spentMicros: bigint;
  lastRequestAt: number;
}

interface DayCount {
  /** The key, or the team, whose day it is. */
  keyId: string;
  day: number;
  ownerId: string;
  requests: number;
  spentMicros: bigint;
}

/**
 * The usage and day counters of one metering commit, added up: a batch of N requests of one key
 * and model makes one upsert of each counter instead of N (the log rows are still one each).
 */
export class UsageTally {
  readonly #usage = new Map<string, UsageCount>();
  readonly #days = new Map<string, DayCount>();
  readonly #teamDays = new Map<string, DayCount>();

  add(entry: NewLogEntry, outcome: RequestOutcome): void {
    // Key ids and model ids hold no NUL: a safe separator.
    const usageKey = `${entry.keyId}\0${entry.model}`;
    let usage = this.#usage.get(usageKey);
    if (!usage) {
      usage = { keyId: entry.keyId, model: entry.model, ownerId: entry.ownerId, total: 0, succeeded: 0, rejected: 0, spentMicros: 0n, lastRequestAt: entry.createdAt };
      this.#usage.set(usageKey, usage);
    }
    usage.total++;
    if (outcome === "succeeded") usage.succeeded++;
    if (outcome === "rejected") usage.rejected++;
    usage.spentMicros += entry.costMicros;
    usage.lastRequestAt = Math.max(usage.lastRequestAt, entry.createdAt);

    countDay(this.#days, entry.keyId, entry);
    // A request is charged to the team its key was in when it reserved (the log row names it).
    // The team's days count charged requests only.
    if (entry.teamId !== null && entry.costMicros > 0n) countDay(this.#teamDays, entry.teamId, entry);
  }

  /** Writes the counters (inside the batch's transaction). */
  writeTo(sql: Statements): void {
    for (const u of this.#usage.values()) sql.countUsage.run(u.keyId, u.model, u.ownerId, u.total, u.succeeded, u.rejected, u.spentMicros, u.lastRequestAt);
    for (const d of this.#days.values()) sql.countDay.run(d.keyId, d.day, d.ownerId, d.requests, d.spentMicros);
    for (const d of this.#teamDays.values()) sql.countTeamDay.run(d.keyId, d.day, d.ownerId, d.requests, d.spentMicros);
  }
}

function countDay(days: Map<string, DayCount>, subject: string, entry: NewLogEntry): void {
  const day = dayOf(entry.createdAt);
  const dayKey = `${subject}\0${day}`;
  let counted = days.get(dayKey);
  if (!counted) {
    counted = { keyId: subject, day, ownerId: entry.ownerId, requests: 0, spentMicros: 0n };
    days.set(dayKey, counted);
  }
  counted.requests++;
  counted.spentMicros += entry.costMicros;
}
