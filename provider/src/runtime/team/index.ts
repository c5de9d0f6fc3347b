/**
 * The Team provider's implementation: a team of the gateway's account API (a budget, rate limits
 * and a model ceiling shared by its keys). Loaded by the dynamic-provider plugin from the one-line
 * `__provider` module of the Team class, and by the native plugin's handler.
 */
import type * as pulumi from "@pulumi/pulumi";
import { providerContext, reported, type ProviderOptions } from "../operations";
import { createTeam, deleteTeam, readTeam, updateTeam } from "./lifecycle";
import { checkTeam, diffTeam } from "./plan";
import type { DesiredTeam, StoredTeam } from "./shapes";

export { TEAM_CARRIED_INPUTS, TEAM_PATCHABLE_FIELDS, TEAM_RECORD_FIELDS, TEAM_SECRET_PROPERTIES, TeamInputs, type DesiredTeam, type StoredTeam } from "./shapes";

/**
 * Makes a Team provider: plain async functions, callable directly in tests, over its own
 * connections (stack config `gateway:*` or `gatewaykeys:*`, then the environment).
 */
export function createTeamProvider(options: ProviderOptions = {}) {
  const context = providerContext(options);
  const operations = {
    /** Remembers the stack config (`gateway:baseUrl`, `gateway:provisioningKey`, `gateway:requestTimeout`). */
    async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
      context.connections.configure(request.config);
    },
    /** Validates the inputs with the contract's schemas; a bad program fails here, at preview. */
    check: (_olds: Record<string, unknown>, news: Record<string, unknown>) => reported(() => checkTeam(context, news)),
    diff: (_id: string, olds: StoredTeam, news: Record<string, unknown>) => reported(() => diffTeam(context, olds, news)),
    create: (inputs: DesiredTeam) => reported(() => createTeam(context, inputs)),
    read: (id: string, props?: StoredTeam) => reported(() => readTeam(context, id, props)),
    update: (id: string, olds: StoredTeam, news: DesiredTeam) => reported(() => updateTeam(context, id, olds, news)),
    delete: (id: string, props: StoredTeam) => reported(() => deleteTeam(context, id, props)),
  } satisfies pulumi.dynamic.ResourceProvider;
  return {
    ...operations,
    /** Closes every SDK client's connections (the plugin process simply exits; tests call this). */
    close: () => context.connections.close(),
  };
}

/** A Team provider; see {@link createTeamProvider}. */
export type TeamProvider = ReturnType<typeof createTeamProvider>;
