import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

export interface Leak {
  file: string;
  /** Which needle was found (its label, never the value). */
  label: string;
}

/**
 * Reads every file under `dir` (the backend's state, history and backups) and reports each one that
 * holds a needle in plaintext or base64. This reads the files on disk on purpose: the Automation
 * API's `exportStack()` decrypts secrets, so it cannot show a leak.
 */
export async function findLeaks(dir: string, needles: Record<string, string>): Promise<Leak[]> {
  const leaks: Leak[] = [];
  for (const file of await listFiles(dir)) {
    const content = await readFile(file);
    for (const [label, value] of Object.entries(needles)) {
      if (encodings(value).some((form) => content.includes(form))) leaks.push({ file, label });
    }
  }
  return leaks;
}

/**
 * The forms a secret takes on disk: itself, and its base64 at each of the three alignments it can
 * have inside a longer base64 string (without the edge characters it shares with its neighbours).
 */
export function encodings(value: string): string[] {
  const bytes = Buffer.from(value);
  const aligned = [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    return encoded.slice(offset === 0 ? 0 : 4, -4);
  });
  return [value, ...aligned];
}

/** Every regular file under `dir`, recursively. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Whether any file under `dir` contains `text`, e.g. `"ciphertext"` in an encrypted secret. */
export async function stateMentions(dir: string, text: string): Promise<boolean> {
  for (const file of await listFiles(dir)) {
    if ((await readFile(file, "utf8")).includes(text)) return true;
  }
  return false;
}

/**
 * The resources of a stack as the backend stores them on disk: secrets still encrypted, so their
 * size is the size a user's state file really has.
 */
export async function storedResources(backendDir: string): Promise<Array<{ type: string; urn: string; outputs?: Record<string, unknown> }>> {
  const files = (await listFiles(backendDir)).filter((file) => /\/\.pulumi\/stacks\/.+\.json$/.test(file));
  if (files.length !== 1) throw new Error(`expected one stack file in the backend, found ${files.length}`);
  const checkpoint = JSON.parse(await readFile(files[0]!, "utf8"));
  return checkpoint.checkpoint?.latest?.resources ?? [];
}
