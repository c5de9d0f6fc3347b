import * as auto from "@pulumi/pulumi/automation/index.js";

/**
 * Engine operations that fail loudly: a failing step's error carries the engine's own output, so a
 * red test says what Pulumi said. Output is also kept for assertions (e.g. on `preview --diff`).
 */
export interface Ran<T> {
  result: T;
  /** Everything the engine printed during the operation. */
  output: string;
}

/** Everything the engine printed in this test file, so tests can check it for leaked secrets. */
let transcript = "";
export const engineTranscript = (): string => transcript;

async function run<T>(step: string, operation: (onOutput: (line: string) => void) => Promise<T>): Promise<Ran<T>> {
  let output = "";
  const onOutput = (chunk: string) => {
    output += chunk;
    transcript += chunk;
  };
  try {
    return { result: await operation(onOutput), output };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`pulumi ${step} failed.\n--- engine output ---\n${output}\n--- error ---\n${message}`);
  }
}

export const up = (stack: auto.Stack, options: auto.UpOptions = {}) =>
  run("up", (onOutput) => stack.up({ ...options, onOutput }));

export const preview = (stack: auto.Stack, options: auto.PreviewOptions = {}) =>
  run("preview", (onOutput) => stack.preview({ diff: true, ...options, onOutput }));

export const refresh = (stack: auto.Stack, options: auto.RefreshOptions = {}) =>
  run("refresh", (onOutput) => stack.refresh({ ...options, onOutput }));

export const destroy = (stack: auto.Stack, options: auto.DestroyOptions = {}) =>
  run("destroy", (onOutput) => stack.destroy({ ...options, onOutput }));

/** Runs a step that is expected to fail and returns what the engine said. */
export async function expectFailure(step: Promise<unknown>): Promise<string> {
  try {
    await step;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("expected the engine operation to fail, but it succeeded");
}
