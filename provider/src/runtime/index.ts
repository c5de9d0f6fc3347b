/**
 * The ApiKey provider's implementation. It runs inside Pulumi's dynamic-provider plugin process,
 * loaded by package name from the one-line `__provider` module (../provider-module.ts), so nothing
 * here is ever captured into a stack's state.
 */
import type * as pulumi from "@pulumi/pulumi";
import { checkInputs } from "./check";
import { configure, connectionProblem, resolveConnection } from "./connection";
import { diffKey } from "./diff";
import { createKey, deleteKey, readKey, updateKey } from "./lifecycle";
import { containsUnknown, type DesiredKey, type StoredKey } from "./shapes";

export { closeClients } from "./connection";
export type { DesiredKey, StoredKey } from "./shapes";

/** The provider object the plugin calls: plain async functions, callable directly in tests. */
export const apiKeyProvider = {
  async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
    configure(request.config);
  },

  /** Validates and normalises inputs; a bad program fails here, at preview, with no gateway call. */
  async check(_olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    const outcome = checkInputs(news);
    const failures = outcome.failures.map((issue) => ({ property: issue.path, reason: issue.message }));
    if (failures.length === 0 && !containsUnknown(news.connection)) {
      const problem = connectionProblem(resolveConnection(outcome.inputs.connection as DesiredKey["connection"]));
      if (problem) failures.push({ property: "connection", reason: problem });
    }
    return { inputs: outcome.inputs, failures };
  },

  diff: (_id: string, olds: StoredKey, news: DesiredKey) => diffKey(olds, news),
  create: (inputs: DesiredKey) => createKey(inputs),
  read: (id: string, props?: StoredKey) => readKey(id, props),
  update: (id: string, olds: StoredKey, news: DesiredKey) => updateKey(id, olds, news),
  delete: (id: string, props: StoredKey) => deleteKey(id, props),
} satisfies pulumi.dynamic.ResourceProvider;
