/**
 * One statement runner for the event tables (audit trail, webhooks, outbox, alert marks), which
 * both stores share: their SQL is the same but for placeholders and row locks, so it is written
 * once with `?` placeholders, and the PostgreSQL runner numbers them (`$1`, `$2`, …).
 */
export interface SqlRunner {
  readonly dialect: "sqlite" | "postgres";
  /** Runs one statement and returns its rows (none for a write without RETURNING). */
  all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

const prepared = new Map<string, { name: string; text: string }>();

/**
 * A statement for PostgreSQL: `?` placeholders numbered (the event tables' SQL holds no `?` in
 * literals), and named, so each connection parses and plans it once rather than per call.
 */
export function postgresStatement(sql: string): { name: string; text: string } {
  let statement = prepared.get(sql);
  if (!statement) {
    let n = 0;
    statement = { name: `gateway_events_${prepared.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
    prepared.set(sql, statement);
  }
  return statement;
}
