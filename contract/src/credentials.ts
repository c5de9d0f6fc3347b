import { crc32 } from "node:zlib";

/**
 * Key formats. A secret is `<prefix><32 random base62 chars><6-char base62 CRC32 checksum>`, so a
 * leaked key is recognisable by its prefix (secret scanners) and a mistyped one is rejected without
 * a database look-up. After creation only a hint (prefix + last 4 characters) is ever shown.
 */
export const KEY_PREFIX = {
  /** Regular API keys: model requests. */
  regular: "gwk_",
  /** Provisioning keys: the account API under /v1/account/*. */
  provisioning: "gwp_",
} as const;

export type KeyKind = keyof typeof KEY_PREFIX;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const SECRET_BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const SECRET_PATTERN = new RegExp(
  `^(${KEY_PREFIX.regular}|${KEY_PREFIX.provisioning})([0-9A-Za-z]{${SECRET_BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

/** The base62 alphabet secrets are drawn from. */
export const SECRET_ALPHABET = BASE62;

function base62Checksum(text: string): string {
  let value = crc32(text);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** Appends the checksum to a prefix and random body, giving a complete secret. */
export function withChecksum(kind: KeyKind, body: string): string {
  const head = KEY_PREFIX[kind] + body;
  return head + base62Checksum(head);
}

/**
 * Tells which kind of key a string is, or `undefined` when it is not a well-formed key
 * (wrong prefix, length, alphabet or checksum).
 */
export function keyKindOf(secret: string): KeyKind | undefined {
  const match = SECRET_PATTERN.exec(secret);
  if (!match) return undefined;
  const [, prefix, body, checksum] = match;
  if (base62Checksum(prefix! + body!) !== checksum) return undefined;
  return prefix === KEY_PREFIX.regular ? "regular" : "provisioning";
}

/** The only part of a secret ever shown after creation: its prefix and last four characters. */
export function hintOf(secret: string): string {
  const prefix = secret.slice(0, 4);
  return `${prefix}...${secret.slice(-4)}`;
}
