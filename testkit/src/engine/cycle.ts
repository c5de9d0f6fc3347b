import type * as auto from "@pulumi/pulumi/automation/index.js";
import { destroy, preview, refresh, up } from "./operations.ts";

/** One optional edit of the program, applied with another `up` in the middle of the cycle. */
export interface CycleEdit {
  /** Changes the program's inputs (stack config, or the inline program's variables). */
  apply(): Promise<void>;
  /** Checks the state after the edit was applied. */
  verify?(result: auto.UpResult): Promise<void> | void;
}

export interface CycleHooks {
  /** Checks the state after the first `up`, before anything else runs. */
  afterCreate?(result: auto.UpResult): Promise<void> | void;
  edit?: CycleEdit;
  /** Checks after destroy (e.g. the real resource is gone). */
  afterDestroy?(): Promise<void> | void;
}

/**
 * The cycle Pulumi itself uses to test providers: up → preview expecting no changes → refresh
 * expecting no changes → (edit → up → preview expecting no changes) → destroy. Any unexpected
 * change makes the engine itself fail the step.
 */
export async function runLifecycle(stack: auto.Stack, hooks: CycleHooks = {}): Promise<void> {
  const created = await up(stack);
  await hooks.afterCreate?.(created.result);
  await preview(stack, { expectNoChanges: true });
  await refresh(stack, { expectNoChanges: true });
  if (hooks.edit) {
    await hooks.edit.apply();
    const edited = await up(stack);
    await hooks.edit.verify?.(edited.result);
    await preview(stack, { expectNoChanges: true });
  }
  await destroy(stack);
  await hooks.afterDestroy?.();
}
