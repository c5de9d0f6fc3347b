import * as pulumi from "@pulumi/pulumi";
import type { TeamArgs } from "./inputs";
import { TEAM_PROVIDER_MODULE, TEAM_TYPE, urnOf } from "./provider-module";
import { TEAM_SECRET_PROPERTIES } from "./runtime/team/shapes";
import { TeamResource, teamInputs } from "./team-base";

/**
 * A team of the gateway, managed as code: a spend policy (one window or several, e.g. daily and
 * monthly), rate limits and a model ceiling shared by every key whose `teamId` names it, enforced
 * together with each key's own across every gateway process. It is a Pulumi dynamic resource: the
 * engine runs its provider (./runtime/team) in the Node dynamic-provider plugin.
 *
 * - Create makes the team; it is safe to repeat after a crash (an Idempotency-Key derived from the
 *   URN and the body replays the lost answer).
 * - Changing anything, the name included, is an in-place update (one PATCH with the version in
 *   state: a change made outside the stack is a conflict, never overwritten). Nothing replaces a team.
 * - Delete removes the team; the gateway refuses while keys belong to it (`team_not_empty`, naming them).
 *   Keys that name the team's `teamId` depend on it, so a destroy deletes them (or moves them) first.
 * - Adopt an existing team with the `import` resource option: it must already be what the program declares.
 *
 * @example
 * const search = new Team("search", { spendPolicy: { windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] } });
 * new ApiKey("search-api", { teamId: search.teamId });
 */
export class Team extends TeamResource {
  constructor(name: string, args: TeamArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    // The engine's own import cannot reach a dynamic provider (its read gets no `__provider`;
    // pulumi/pulumi#16175): the `import` option becomes an adoption the provider performs in `create`.
    const { import: importId, ...options } = opts;
    const inputs: Record<string, unknown> = {
      ...teamInputs(args),
      name: args.name ?? name,
      adoptTeamId: importId,
      // Names the create across runs (the derived Idempotency-Key), and addresses the provider's warnings.
      clientReference: urnOf(name, TEAM_TYPE, options.parent),
      __provider: TEAM_PROVIDER_MODULE,
    };
    const additionalSecretOutputs = [...(options.additionalSecretOutputs ?? []), ...TEAM_SECRET_PROPERTIES];
    super(TEAM_TYPE, name, inputs, { ...options, additionalSecretOutputs });
    // The team's id is the resource's id, which the engine knows while it previews an update; the
    // other outputs of a dynamic resource it previews as unknown. Read from `id`, a key naming
    // `team.teamId` shows no change when only its team's limits change.
    Object.defineProperty(this, "teamId", { value: this.id, enumerable: true });
  }
}
