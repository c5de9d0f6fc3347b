import pg from "pg";

/** PostgreSQL's type id of BIGINT (int8). */
const INT8_OID = 20;

/**
 * Reads BIGINT as a bigint (pg's default is a string, as it may pass 2^53): credits can, and the
 * row helpers (store/account-rows.ts) take a bigint or a number. Set per connection, never globally, so
 * other users of `pg` in the process are unaffected.
 */
export const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? (text: string) => BigInt(text) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/**
 * Checks that `url` is a PostgreSQL URL (`postgres://` or `postgresql://`) and returns it. The
 * error never repeats the URL: it may carry a password.
 */
export function checkDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("the database URL is not a URL; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new Error(`the database URL has scheme ${JSON.stringify(parsed.protocol.replace(/:$/, ""))}; expected postgres:// or postgresql://`);
  }
  if (parsed.pathname.length <= 1) throw new Error("the database URL names no database; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE");
  return url;
}

/** The URL without its password (and query, which may hold one), fit for logs and messages. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    parsed.search = "";
    return parsed.toString();
  } catch {
    return "(unparseable database URL)";
  }
}
