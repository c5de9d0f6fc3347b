import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from "node:crypto";
import { SECRET_ALPHABET, SECRET_BODY_LENGTH, withChecksum, type KeyKind } from "@gateway-keys/contract";

// 62 * 4 = 248: bytes at or above it are dropped, so `byte % 62` is uniform (no modulo bias).
const UNBIASED_BYTE_LIMIT = 248;

// Random bytes are drawn from the OS CSPRNG in blocks and handed out once each: one call per
// 4 KiB instead of one per identifier (the same trick as crypto.randomUUID's entropy cache).
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function nextRandomByte(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const byte = pool[poolOffset]!;
  // Zeroed once used, so no secret material lingers in the pool.
  pool[poolOffset++] = 0;
  return byte;
}

/** `length` characters drawn uniformly from the base62 alphabet with the OS CSPRNG. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < UNBIASED_BYTE_LIMIT) out += SECRET_ALPHABET[byte % 62];
  }
  return out;
}

/** A fresh secret of the given kind: prefix, 32 random base62 characters, checksum. */
export function newSecret(kind: KeyKind): string {
  return withChecksum(kind, randomBase62(SECRET_BODY_LENGTH));
}

/** A fresh identifier such as `key_3fZ…`; 20 base62 characters is about 119 random bits. */
export function newId(prefix: "key" | "pk" | "log" | "resp" | "chatcmpl" | "msg" | "modr" | "call" | "aud" | "wh" | "evt" | "dlv" | "team"): string {
  return `${prefix}_${randomBase62(20)}`;
}

/** SHA-256 of a string. Secrets are stored only as this hash; high-entropy keys need no slow KDF. */
export function sha256(text: string): Buffer {
  // One-shot hash: several times cheaper than a Hash object for a short input.
  return hash("sha256", text, "buffer");
}

/** Constant-time comparison of two hashes, so timing tells nothing about how much matched. */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const IV_LENGTH = 12;
const TAG_LENGTH = 16;

/**
 * AES-256-GCM for replies kept in the idempotency store: a create or rotate reply holds a one-time
 * secret, so it must not sit in the database in plaintext. The additional data binds a sealed reply
 * to its owner, method, operation and idempotency key, so a row copied into another scope fails to open.
 */
export class ReplyCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new RangeError("the reply encryption key must be 32 bytes");
    this.#key = key;
  }

  /** `iv ‖ tag ‖ ciphertext`. */
  seal(plaintext: string, additionalData: string): Buffer {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(additionalData, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** The plaintext, or `undefined` when the data was sealed with another key or scope, or altered. */
  open(sealed: Uint8Array, additionalData: string): string | undefined {
    const data = Buffer.from(sealed);
    if (data.length < IV_LENGTH + TAG_LENGTH) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, data.subarray(0, IV_LENGTH));
      decipher.setAAD(Buffer.from(additionalData, "utf8"));
      decipher.setAuthTag(data.subarray(IV_LENGTH, IV_LENGTH + TAG_LENGTH));
      return Buffer.concat([decipher.update(data.subarray(IV_LENGTH + TAG_LENGTH)), decipher.final()]).toString("utf8");
    } catch {
      return undefined;
    }
  }
}
