/**
 * `gateway keys rotate`: the bulk rotation (extension `bulk_rotation`) from a terminal, for the
 * hour after a leak. It always asks the gateway for a dry run first and shows the keys, their
 * clients and last use; then, unless `--dry-run`, it rotates exactly the keys it showed (their
 * versions pinned, so a key changed in between is reported, not overwritten), under one
 * Idempotency-Key it prints before sending, so a rerun with `--idempotency-key` finishes a cut-off
 * run instead of rotating twice.
 *
 * Secrets: the new ones are written only to `--secrets-file` (created, never overwritten, mode
 * 0600), never to the terminal; the provisioning key is read from the environment or a file, never
 * from a flag (which `ps` shows).
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { randomUUID } from "node:crypto";
import { previousSecretInUse, type BulkRotateRequest, type BulkRotation, type BulkRotationItem, type SecretUse } from "@gateway-keys/contract";
import { GatewayClient } from "@gateway-keys/sdk";

/** Where the gateway's URL and the provisioning key are read when no flag names them. */
export const BASE_URL_ENV = "GATEWAY_BASE_URL";
export const PROVISIONING_KEY_ENV = "GATEWAY_PROVISIONING_KEY";

/** Exit status when the rotation ran but left some pinned keys alone (a conflict, a revoke in between). */
export const EXIT_PARTIAL = 3;

export interface KeysRotateOptions {
  label: string[];
  dryRun?: boolean;
  yes?: boolean;
  grace?: number;
  retireWhenIdle?: number;
  inUseWarning?: number;
  secretsFile?: string;
  output: "table" | "json";
  idempotencyKey?: string;
  baseUrl?: string;
  provisioningKeyFile?: string;
}

/** The terminal the command talks to (stdout for results, stderr for everything said along the way), replaceable in tests. */
export interface Terminal {
  out(text: string): void;
  err(text: string): void;
  /** Asks a yes/no question; null when there is no one to ask (stdin is not a terminal). */
  confirm(question: string): Promise<boolean | null>;
}

export const processTerminal: Terminal = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  async confirm(question) {
    if (!process.stdin.isTTY) return null;
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
    } finally {
      prompt.close();
    }
  },
};

/** A duration as the flags take it: whole seconds (`90`) or a whole number and a unit (`45s`, `15m`, `1h`, `7d`). */
export function parseDuration(text: string): number {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!match) throw new Error(`expected a duration such as 90, 45s, 15m, 1h or 7d, not ${JSON.stringify(text)}`);
  return Number(match[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "" | "s" | "m" | "h" | "d"];
}

/** Runs the command; resolves with the exit status. */
export async function keysRotate(options: KeysRotateOptions, terminal: Terminal = processTerminal): Promise<number> {
  const baseUrl = options.baseUrl ?? process.env[BASE_URL_ENV];
  if (!baseUrl) throw new Error(`keys rotate needs the gateway's URL: --base-url <url> or ${BASE_URL_ENV}`);
  const provisioningKey = readProvisioningKey(options.provisioningKeyFile);
  const terms = {
    label: options.label,
    ...(options.grace !== undefined && { gracePeriodSeconds: options.grace }),
    ...(options.retireWhenIdle !== undefined && { retireWhenIdleSeconds: options.retireWhenIdle }),
    ...(options.inUseWarning !== undefined && { inUseWarningSeconds: options.inUseWarning }),
  } satisfies BulkRotateRequest;
  if (!options.dryRun && options.secretsFile === undefined) {
    throw new Error("keys rotate shows each new secret once: give --secrets-file <file> (written with mode 0600) to keep them, or --dry-run to only look");
  }

  const client = new GatewayClient({ baseUrl, provisioningKey });
  try {
    const plan = await client.apiKeys.bulkRotate({ ...terms, dryRun: true });
    const planned = plan.keys.filter((item) => item.outcome === "planned");
    if (options.dryRun) {
      terminal.out(options.output === "json" ? `${JSON.stringify(plan, null, 2)}\n` : planTable(plan, Date.now()));
      return 0;
    }
    // What is about to be rotated, on stderr: stdout is kept for the result.
    terminal.err(planTable(plan, Date.now()));
    if (planned.length === 0) {
      terminal.err("nothing to rotate\n");
      return 0;
    }
    if (!options.yes) {
      const answer = await terminal.confirm(`Rotate these ${planned.length} keys?`);
      if (answer === null) throw new Error("not rotating: stdin is not a terminal, so no one can confirm; add --yes to rotate the keys shown");
      if (!answer) {
        terminal.err("not rotated\n");
        return 1;
      }
    }
    // Opened before the rotation: a path that cannot be written fails now, not after the secrets exist.
    const secrets = openSecretsFile(options.secretsFile!);
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    terminal.err(`rotating under Idempotency-Key ${idempotencyKey}: if this command is cut off, run it again with --idempotency-key ${idempotencyKey}; the gateway then answers what it did instead of rotating again\n`);
    let done: { data: BulkRotation; response: { replayed: boolean } };
    try {
      const expectedVersions = Object.fromEntries(planned.map((item) => [item.keyId, item.key!.version]));
      done = await client.apiKeys.bulkRotate({ ...terms, expectedVersions }, { idempotencyKey }).withResponse();
    } catch (error) {
      secrets.discard();
      throw error;
    }
    secrets.write(done.data);
    if (done.response.replayed) terminal.err(`replayed: this rotation already ran at ${done.data.ranAt} (request ${done.data.requestId}); nothing was rotated now\n`);
    if (options.output === "json") terminal.out(`${JSON.stringify(withoutSecrets(done.data), null, 2)}\n`);
    else terminal.out(resultTable(done.data));
    terminal.err(`new secrets written to ${secrets.path} (mode 0600)\n`);
    const leftAlone = done.data.keys.filter((item) => item.expectedVersion !== null && item.outcome !== "rotated");
    if (leftAlone.length > 0) {
      terminal.err(`${leftAlone.length} pinned key(s) were left alone (see outcome); run the command again to see them as they are now\n`);
      return EXIT_PARTIAL;
    }
    return 0;
  } finally {
    await client.close();
  }
}

function readProvisioningKey(file: string | undefined): string {
  if (file !== undefined) {
    const key = readFileSync(resolve(file), "utf8").trim();
    if (!key) throw new Error(`the provisioning key file ${file} is empty`);
    return key;
  }
  const key = process.env[PROVISIONING_KEY_ENV];
  if (!key) throw new Error(`keys rotate needs a provisioning key with keys:write: set ${PROVISIONING_KEY_ENV}, or give --provisioning-key-file <file>`);
  return key;
}

/** The file the new secrets go to: created now (never over an existing file), readable by its owner alone. */
function openSecretsFile(path: string): { path: string; write(rotation: BulkRotation): void; discard(): void } {
  const absolute = resolve(path);
  let fd: number;
  try {
    fd = openSync(absolute, "wx", 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`cannot create the secrets file ${absolute}${code === "EEXIST" ? ": it exists (the command never overwrites one; name a new file)" : `: ${code}`}`);
  }
  return {
    path: absolute,
    write(rotation) {
      const keys = rotation.keys
        .filter((item) => item.outcome === "rotated")
        .map((item) => ({ keyId: item.keyId, name: item.key!.name, labels: item.key!.labels, hint: item.key!.hint, secret: item.secret!, previousSecretExpiresAt: item.key!.previousSecretExpiresAt }));
      writeSync(fd, `${JSON.stringify({ requestId: rotation.requestId, rotatedAt: rotation.ranAt, keys }, null, 2)}\n`);
      closeSync(fd);
    },
    discard() {
      closeSync(fd);
      rmSync(absolute, { force: true });
    },
  };
}

function withoutSecrets(rotation: BulkRotation): BulkRotation {
  return { ...rotation, keys: rotation.keys.map((item) => ({ ...item, secret: null })) };
}

/** "3 min ago (2026-11-27 01:02 UTC)", or "never". */
function when(iso: string | null, now: number): string {
  if (iso === null) return "never";
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  const ago = seconds < 60 ? `${Math.max(seconds, 0)} s` : seconds < 7200 ? `${Math.round(seconds / 60)} min` : seconds < 172_800 ? `${Math.round(seconds / 3600)} h` : `${Math.round(seconds / 86_400)} d`;
  return `${ago} ago (${iso.slice(0, 16).replace("T", " ")} UTC)`;
}

/** Who uses a secret: its clients' user agents and addresses, the most recent first. */
function clientsOf(use: SecretUse | null): string {
  if (use === null) return "not tracked";
  if (use.clients.length === 0) return "none seen";
  const shown = use.clients.slice(0, 2).map((client) => `${client.userAgent ?? "no user agent"} @ ${client.address ?? "?"}`);
  return `${use.clients.length}: ${shown.join(", ")}${use.clients.length > 2 ? ", …" : ""}`;
}

function previousOf(item: BulkRotationItem, now: number): string {
  const previous = item.key?.previousSecret ?? null;
  if (previous === null || previous.retiredAt !== null || Date.parse(previous.expiresAt) <= now) return "—";
  const since = previous.clients.filter((client) => client.requests > 0).length;
  const state = previousSecretInUse(previous, now) ? `IN USE by ${since} client(s)` : "idle";
  return `${state}, works until ${previous.expiresAt.slice(0, 16).replace("T", " ")} UTC`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n");
}

/** The dry run as a person reads it: one line per key, then what rotating would end. */
export function planTable(plan: BulkRotation, now: number): string {
  const rows = [["KEY", "NAME", "STATE", "VERSION", "OUTCOME", "LAST USED", "CLIENTS OF THE CURRENT SECRET", "PREVIOUS SECRET"]];
  for (const item of plan.keys) {
    const key = item.key;
    rows.push([
      item.keyId,
      key?.name ?? "—",
      key?.state ?? "—",
      String(key?.version ?? "—"),
      item.outcome,
      when(key?.currentSecret?.lastUsedAt ?? key?.lastUsedAt ?? null, now),
      clientsOf(key?.currentSecret ?? null),
      previousOf(item, now),
    ]);
  }
  const grace = plan.gracePeriodSeconds === 0 ? "no grace: each replaced secret stops at once" : `the replaced secrets keep working ${plan.gracePeriodSeconds} s`;
  const lines = [`Keys selected by ${plan.label.join(", ")}: ${plan.keys.length} (dry run; ${grace})`, table(rows)];
  const cutting = plan.keys.filter((item) => item.outcome === "planned" && item.endsPreviousSecretInUse);
  if (cutting.length > 0) {
    lines.push(`WARNING: rotating ends the previous secret of ${cutting.map((item) => item.keyId).join(", ")} at once, and clients still use it.`);
  }
  return `${lines.join("\n")}\n`;
}

/** What the rotation did: one line per key, never a secret. */
export function resultTable(rotation: BulkRotation): string {
  const rows = [["KEY", "NAME", "OUTCOME", "VERSION", "NEW HINT", "OLD SECRET WORKS UNTIL"]];
  for (const item of rotation.keys) {
    const rotated = item.outcome === "rotated";
    rows.push([
      item.keyId,
      item.key?.name ?? "—",
      item.outcome,
      String(item.key?.version ?? "—"),
      rotated ? item.key!.hint : "—",
      rotated ? (item.key!.previousSecretExpiresAt?.slice(0, 19).replace("T", " ") ?? "stopped at once") : "—",
    ]);
  }
  const count = rotation.keys.filter((item) => item.outcome === "rotated").length;
  return `Rotated ${count} of ${rotation.keys.length} keys (request ${rotation.requestId})\n${table(rows)}\n`;
}
