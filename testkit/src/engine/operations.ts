import * as auto from "@pulumi/pulumi/automation/index.js";

/**
 * Engine operations that fail loudly: a failing step's error carries the engine's own output, so a
 * red test says what Pulumi said. Output is also kept for assertions (e.g. on `preview --diff`).
 */
export interface Ran<T> {
  result: T;
  /** Everything the engine printed on stdout during the operation. */
  output: string;
  /** Everything the engine printed on stderr during the operation. */
  errors: string;
}

/** A failed engine operation: what it printed, each stream on its own, so a test can count a message. */
export class EngineFailure extends Error {
  readonly stdout: string;
  readonly stderr: string;

  constructor(step: string, stdout: string, stderr: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`pulumi ${step} failed.\n--- engine output ---\n${stdout}\n--- error ---\n${message}`);
    this.name = "EngineFailure";
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

/** Everything the engine printed in this test file, so tests can check it for leaked secrets. */
let transcript = "";
export const engineTranscript = (): string => transcript;

type Streams = { onOutput: (chunk: string) => void; onError: (chunk: string) => void };

async function run<T>(step: string, operation: (streams: Streams) => Promise<T>): Promise<Ran<T>> {
  let output = "";
  let errors = "";
  const streams: Streams = {
    onOutput: (chunk) => {
      output += chunk;
      transcript += chunk;
    },
    onError: (chunk) => {
      errors += chunk;
      transcript += chunk;
    },
  };
  try {
    return { result: await operation(streams), output, errors };
  } catch (error) {
    throw new EngineFailure(step, output, errors, error);
  }
}

/**
 * After an `up`, `refresh` or `destroy`, the Automation API reads the update's summary with `pulumi stack
 * history`, by default with `--show-secrets`: that CLI start then derives the passphrase's key (a million
 * PBKDF2 rounds, more CPU than the rest of the command) to decrypt the summary's config, which no test
 * reads. A caller that wants it decrypted passes `showSecrets: true`.
 */
const SUMMARY_MASKED = { showSecrets: false };

export const up = (stack: auto.Stack, options: auto.UpOptions = {}) =>
  run("up", (streams) => stack.up({ ...SUMMARY_MASKED, ...options, ...streams }));

export const preview = (stack: auto.Stack, options: auto.PreviewOptions = {}) =>
  run("preview", (streams) => stack.preview({ diff: true, ...options, ...streams }));

export const refresh = (stack: auto.Stack, options: auto.RefreshOptions = {}) =>
  run("refresh", (streams) => stack.refresh({ ...SUMMARY_MASKED, ...options, ...streams }));

export const destroy = (stack: auto.Stack, options: auto.DestroyOptions = {}) =>
  run("destroy", (streams) => stack.destroy({ ...SUMMARY_MASKED, ...options, ...streams }));

/** Runs a step that is expected to fail and returns what the engine said. */
export async function expectFailure(step: Promise<unknown>): Promise<string> {
  return (await expectEngineFailure(step)).message;
}

/** Runs a step that is expected to fail and returns the failure, with stdout and stderr apart. */
export async function expectEngineFailure(step: Promise<unknown>): Promise<EngineFailure> {
  try {
    await step;
  } catch (error) {
    if (error instanceof EngineFailure) return error;
    throw error;
  }
  throw new Error("expected the engine operation to fail, but it succeeded");
}

/** How often `text` occurs in `output`. */
export function occurrences(output: string, text: string): number {
  return output.split(text).length - 1;
}
