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

/** `?` placeholders numbered for PostgreSQL (the event tables' SQL holds no `?` in literals). */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
