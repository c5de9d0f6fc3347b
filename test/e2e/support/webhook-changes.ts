import type * as auto from "@pulumi/pulumi/automation/index.js";
import { preview, up, type Ran } from "@gateway-keys/testkit/engine";
import type { RequestRecorder } from "@gateway-keys/testkit";

/**
 * Previews and applies a program whose webhook endpoint and key changed (events, thresholds): the
 * plan must be two in-place updates naming `events` and `budgetAlertThresholds`, never a
 * replacement, and the update exactly one PATCH of each. Returns the update's result.
 */
export async function expectWebhookAndKeyChangedInPlace(stack: auto.Stack, recorder: RequestRecorder): Promise<Ran<auto.UpResult>> {
  const plan = await preview(stack);
  expect(plan.result.changeSummary).toMatchObject({ update: 2 });
  expect(plan.result.changeSummary.replace ?? 0).toBe(0);
  expect(plan.output).toMatch(/~ events/);
  expect(plan.output).toMatch(/~ budgetAlertThresholds/);
  recorder.reset();
  const changed = await up(stack);
  const mutations = recorder.calls().filter((call) => !call.startsWith("GET")).map((call) => call.replace(/wh_[A-Za-z0-9]+/g, "{id}"));
  expect(mutations.sort()).toEqual(["PATCH /v1/account/api-keys/{id}", "PATCH /v1/account/webhooks/{id}"]);
  return changed;
}
