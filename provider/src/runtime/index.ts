/**
 * The ApiKey provider's implementation. It runs inside Pulumi's dynamic-provider plugin process,
 * loaded by package name from the tiny serialized provider (../provider.ts), so nothing here is
 * ever captured into a stack's state.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ApiKeyState } from "../inputs";
import { configure, missingConnection, resolveConnection } from "./connection";
import { checkInputs, UNKNOWN, type DesiredKey } from "./desired";
import { diffKey } from "./diff";
import { createKey, deleteKey, readKey, updateKey } from "./lifecycle";

type StoredKey = ApiKeyState & { connection?: DesiredKey["connection"] };

export const apiKeyProvider = {
  async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
    configure(request.config);
  },

  async check(_olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    const outcome = checkInputs(news);
    const failures = outcome.failures.map((issue) => ({ property: issue.path, reason: issue.message }));
    if (failures.length === 0 && !JSON.stringify(news.connection ?? "").includes(UNKNOWN)) {
      const missing = missingConnection(resolveConnection(outcome.inputs.connection as DesiredKey["connection"]));
      if (missing) failures.push({ property: "connection", reason: missing });
    }
    return { inputs: outcome.inputs, failures };
  },

  diff: (_id: string, olds: StoredKey, news: DesiredKey) => diffKey(olds, news),
  create: (inputs: DesiredKey) => createKey(inputs),
  read: (id: string, props?: StoredKey) => readKey(id, props),
  update: (id: string, olds: StoredKey, news: DesiredKey) => updateKey(id, olds, news),
  delete: (id: string, props: StoredKey) => deleteKey(id, props),
} satisfies pulumi.dynamic.ResourceProvider;
