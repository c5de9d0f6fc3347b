import type { TimelineRow, UsageLine } from "./types";

// Rows of both stores, which share their column names and types (the tables with a
// codec, store/tables.ts, are read through it instead). An integer column arrives as a
// bigint or a number depending on the driver (SQLite statements that read credits use
// setReadBigInts(true); the PostgreSQL pool reads BIGINT as bigint, INTEGER as number): the
// helpers below make credits bigints and everything else numbers.
type Int = bigint | number;
const num = (value: Int): number => Number(value);
const numOrNull = (value: Int | null): number | null => (value === null ? null : Number(value));
const big = (value: Int): bigint => BigInt(value);

export interface UsageRow {
  key_id: string;
  model: string;
  total: Int;
  succeeded: Int;
  rejected: Int;
  spent_micros: Int;
}

export function usageFromRow(row: UsageRow): UsageLine {
  return {
    keyId: row.key_id,
    model: row.model,
    total: num(row.total),
    succeeded: num(row.succeeded),
    rejected: num(row.rejected),
    spentMicros: big(row.spent_micros),
  };
}

export interface TimelineDbRow {
  bucket: Int;
  model: string;
  status: Int;
  requests: Int;
  cost_micros: Int;
}

export function timelineFromRow(row: TimelineDbRow): TimelineRow {
  return { bucket: num(row.bucket), model: row.model, status: num(row.status), requests: num(row.requests), costMicros: big(row.cost_micros) };
}
