import type * as pulumi from "@pulumi/pulumi";
import { KEY_CHANGE_FIELDS } from "@gateway-keys/contract";
import { reviewAdoption } from "./adoption";
import type { ProviderContext } from "./context";
import { graceSettingFailures, planRotation } from "./rotation";
import { ApiKeyInputs, DERIVED_FIELDS, UNKNOWN, type CheckedInputs, type DesiredKey } from "./shapes";
import { durationSeconds } from "./time";
import { validatedInputs } from "./validated";

/** The inputs `check` hands on, or the failures that stop the preview. */
export interface CheckOutcome {
  inputs: CheckedInputs;
  failures: pulumi.dynamic.CheckFailure[];
}


/**
 * Validates a program's inputs with one parse of {@link ApiKeyInputs} (the contract's own schemas)
 * and fills the defaults, then resolves the key's connection, so a bad program fails at preview,
 * naming each property path and what is allowed, with no gateway call. A value not known until
 * apply passes through as is; the gateway checks it then.
 *
 * It also plans the secret (see {@link planRotation}): a rotation shows in `pulumi preview --diff`
 * as a change of `rotationTrigger` or of the `rotation` input naming its reason, and during a
 * preview the `secret` is shown as unknown. A key to adopt is read and compared with the program
 * here, so a mismatch fails the preview rather than the update.
 */
export async function checkInputs(context: ProviderContext, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<CheckOutcome> {
  // Hidden inputs of the ApiKey class: whether the engine previews, and nothing the program sets as `rotation`.
  const { planning, rotation: _ignored, ...program } = news;
  // Computed below from the provider's durations: whatever the program sent as such is dropped.
  const declared = Object.fromEntries(Object.entries(program).filter(([field]) => !(DERIVED_FIELDS as readonly string[]).includes(field)));
  // Inputs that shape the key on the gateway: while one is not known yet, there is nothing to check against.
  const validated = validatedInputs(ApiKeyInputs, declared, KEY_CHANGE_FIELDS);
  if (validated.kind === "pending") return { inputs: declared, failures: [] };
  if (validated.kind === "failed") return { inputs: declared, failures: validated.failures };
  const { pending } = validated;
  const graceFailures = graceSettingFailures(validated.desired, pending);
  if (graceFailures.length > 0) return { inputs: declared, failures: graceFailures };
  const desired: DesiredKey = withDerivedFields(validated.desired);
  // The key is new when the engine has no previous inputs for it.
  const previous = olds.name === undefined ? undefined : (olds as Partial<DesiredKey>);
  const plan = planRotation(previous, desired, context.now());
  const inputs: Record<string, unknown> = { ...desired, ...pending };
  if (plan.record) inputs.rotation = plan.record;
  // Only a preview may show a value as unknown; the update itself then records the new secret.
  if (planning === true && plan.rotates) inputs.secret = UNKNOWN;

  if (pending.connection !== undefined) return { inputs, failures: [] };
  const resolution = context.connections.resolve(desired.connection);
  // No property: the engine would print the (absent) value of `connection` beside a problem of
  // stack config or the environment. The reason says what to set.
  if (!resolution.ok) return { inputs, failures: [{ property: "", reason: resolution.problem }] };
  if (previous === undefined && desired.adoptKeyId) {
    const problem = await reviewAdoption(context, desired.adoptKeyId, desired, resolution.connection);
    if (problem) return { inputs, failures: [{ property: "", reason: problem }] };
  }
  return { inputs, failures: [] };
}

/** The key with the contract's alert fields set from the provider's durations (none when left out). */
function withDerivedFields(key: DesiredKey): DesiredKey {
  const derived: DesiredKey = { ...key };
  if (key.expiryWarning !== undefined) derived.expiryWarningSeconds = durationSeconds(key.expiryWarning);
  if (key.rotateAfter !== undefined) derived.rotateAfterSeconds = durationSeconds(key.rotateAfter);
  return derived;
}
