import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { Store } from "./store/types";

/** Environment variable that may hold the reply encryption key (base64 or hex of 32 bytes). */
export const ENCRYPTION_KEY_ENV = "GATEWAY_ENCRYPTION_KEY";

/** Parses a 32-byte key written as 64 hex characters or base64 / base64url. */
export function parseEncryptionKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) {
    throw new Error(`${source} must hold a 32-byte key as 64 hex characters or base64 (e.g. \`openssl rand -base64 32\`)`);
  }
  return key;
}

/** Where the key file of a database lives: next to it, named `<db>.key`. */
export function keyFilePathFor(dbPath: string): string {
  return `${dbPath}.key`;
}

/**
 * Reads the key file, creating it first (mode 0600, exclusive create so two processes never write
 * two different keys) when it does not exist yet.
 */
function readOrCreateKeyFile(path: string): Buffer {
  try {
    writeFileSync(path, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // A key readable by others would let them open stored replies, one-time secrets included.
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return parseEncryptionKey(readFileSync(path, "utf8"), `the key file ${path}`);
}

/**
 * Chooses the key that encrypts stored idempotent replies, first match wins:
 * 1. the `explicit` option (a Buffer, or text as in the environment variable);
 * 2. the `GATEWAY_ENCRYPTION_KEY` environment variable;
 * 3. for a database file, the key file `<db>.key` beside it, created on first use with mode 0600;
 * 4. for an in-memory database, a random key that lives as long as the process (so do its replies).
 * A PostgreSQL database has neither a file nor a single process: every process sharing it must
 * open the others' replies, so it takes the key from 1 or 2 and refuses to start without one.
 */
export function resolveEncryptionKey(explicit: Buffer | string | undefined, store: Pick<Store, "kind" | "location">): Buffer {
  if (Buffer.isBuffer(explicit)) return parseEncryptionKey(explicit.toString("base64"), "the encryptionKey option");
  if (typeof explicit === "string") return parseEncryptionKey(explicit, "the encryptionKey option");
  const fromEnv = process.env[ENCRYPTION_KEY_ENV];
  if (fromEnv) return parseEncryptionKey(fromEnv, ENCRYPTION_KEY_ENV);
  if (store.kind === "postgres") {
    throw new Error(
      `a PostgreSQL store is shared by every gateway process, and they must read each other's stored replies: set ${ENCRYPTION_KEY_ENV} to one 32-byte key for all of them (e.g. \`openssl rand -base64 32\`), or pass encryptionKey`,
    );
  }
  if (store.location) return readOrCreateKeyFile(keyFilePathFor(store.location));
  return randomBytes(32);
}
