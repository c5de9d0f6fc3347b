import { GatewayError } from "../errors";

/**
 * Faults of the database itself — it cannot be reached, is restarting, answers too slowly, or (on
 * SQLite) its disk is full, its file read-only or its lock held too long — as opposed to a bug or
 * bad input. A request that meets one changed nothing (its transaction rolled back) and may be
 * sent again: clients get 503 `database_unavailable` with `Retry-After`, never a 500 or a hang.
 *
 * Each reason is fit for a client: it names the kind of fault, never a host, user or path.
 */

/** Seconds a client is asked to wait: outages that end by themselves end in seconds, and clients back off on their own. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/** SQLSTATE classes and codes that mean the database, not the request, failed (PostgreSQL's appendix A). */
const POSTGRES_UNAVAILABLE: readonly [prefix: string, reason: string][] = [
  ["08", "the connection to the database failed"], // connection_exception
  ["57P01", "the database is shutting down"], // admin_shutdown
  ["57P02", "the database is restarting after a crash"], // crash_shutdown
  ["57P03", "the database is starting and not yet accepting connections"], // cannot_connect_now
  ["57P05", "the database ended an idle session"], // idle_session_timeout
  ["57014", "the database did not answer within the statement timeout"], // query_canceled (statement_timeout)
  ["55P03", "a lock the request needs is held too long"], // lock_not_available (lock_timeout)
  ["53", "the database is out of resources (connections, memory or disk)"], // insufficient_resources
  ["58", "the database server reported an I/O error"], // system_error
  ["25006", "the database is read-only (a standby, or in recovery)"], // read_only_sql_transaction
  ["40001", "the database kept failing to serialise the change"], // serialization_failure, once retries ran out
  ["40P01", "the database kept finding a deadlock"], // deadlock_detected, once retries ran out
];

/** Socket errors of a database that cannot be reached. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "ECONNABORTED"]);

/** What node-postgres says, in messages only, when a connection is lost or times out. */
const POSTGRES_CLIENT_MESSAGES: readonly [pattern: RegExp, reason: string][] = [
  [/^Connection terminated/, "the connection to the database was lost"],
  [/^timeout exceeded when trying to connect$/, "no database connection could be opened in time"],
  [/^Query read timeout$/, "the database did not answer within the statement timeout"],
  [/not queryable$/, "the connection to the database was lost"],
];

/** SQLite's primary result codes (the low byte of an extended code) that mean the file, not the request, failed. */
const SQLITE_BUSY = 5;
const SQLITE_UNAVAILABLE = new Map<number, string>([
  [SQLITE_BUSY, "the database is locked by another connection past the busy timeout"], // SQLITE_BUSY
  [6, "the database is locked"], // SQLITE_LOCKED
  [8, "the database file is read-only"], // SQLITE_READONLY
  [10, "the database file could not be read or written"], // SQLITE_IOERR
  [13, "the disk holding the database is full"], // SQLITE_FULL
  [14, "the database file cannot be opened"], // SQLITE_CANTOPEN
]);

/** Thrown by a store that already knows its database is away (see store/postgres/breaker.ts), without asking it again. */
export class DatabaseUnavailableError extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(`database unavailable: ${reason}`);
    this.name = "DatabaseUnavailableError";
    this.reason = reason;
  }
}

/** Whether `error` is SQLite's SQLITE_BUSY: the file stayed locked by another connection past the busy timeout. */
export function isSqliteBusy(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  return code === "ERR_SQLITE_ERROR" && typeof errcode === "number" && (errcode & 0xff) === SQLITE_BUSY;
}

/** Why the database cannot serve now, when `error` is such a fault; `undefined` for any other error. */
export function databaseFaultReason(error: unknown): string | undefined {
  if (error instanceof DatabaseUnavailableError) return error.reason;
  if (!(error instanceof Error)) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  // node:sqlite: code ERR_SQLITE_ERROR with SQLite's (extended) result code.
  if (code === "ERR_SQLITE_ERROR" && typeof errcode === "number") return SQLITE_UNAVAILABLE.get(errcode & 0xff);
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code)) return "the database cannot be reached";
    // pg's DatabaseError carries the SQLSTATE as `code` (five characters).
    if (/^[0-9A-Z]{5}$/.test(code)) return POSTGRES_UNAVAILABLE.find(([prefix]) => code.startsWith(prefix))?.[1];
  }
  for (const [pattern, reason] of POSTGRES_CLIENT_MESSAGES) if (pattern.test(error.message)) return reason;
  // An AggregateError (a host with several addresses, each refused) is a fault when its parts are.
  if (error instanceof AggregateError && error.errors.length > 0 && error.errors.every((part) => databaseFaultReason(part) !== undefined)) {
    return databaseFaultReason(error.errors[0]);
  }
  return undefined;
}

/** The 503 a client gets for a database fault: retryable, with `Retry-After`. */
export function databaseUnavailable(reason: string): GatewayError {
  return new GatewayError("database_unavailable", `The gateway's database is unavailable: ${reason}. The request was not completed; retry it (an account change with the same Idempotency-Key) after the time Retry-After gives.`, {
    headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}

/** `error` as the client's 503 when it is a database fault, else `undefined`. */
export function asDatabaseUnavailable(error: unknown): GatewayError | undefined {
  const reason = databaseFaultReason(error);
  return reason === undefined ? undefined : databaseUnavailable(reason);
}
