import type { EnforcementLevel, ResourceValidationPolicy } from "@pulumi/policy";
import { API_KEY_TYPES, durationDays, spendWindowsOf, stackOf, TEAM_TYPES, type ApiKeyProps, type SpendPolicyProps, type TeamProps } from "./resources";

/**
 * One rule: its name (what `--policy-pack-config` keys its settings by), default level, the
 * settings it accepts (JSON schema), the resource it checks and the check, which returns the fix
 * for each violation.
 */
interface Rule<Config, Props = ApiKeyProps> {
  name: string;
  description: string;
  enforcementLevel: EnforcementLevel;
  configSchema: { properties: Record<string, object> };
  /** What it checks: keys (the default) or teams. */
  resource?: "ApiKey" | "Team";
  check(props: Props, config: Config, context: { stack: string; now: Date }): string[];
}

/** The rule as @pulumi/policy runs it: every ApiKey (or Team), dynamic or native, checked; one message per fix. */
function toPolicy<Config, Props>(rule: Rule<Config, Props>): ResourceValidationPolicy {
  const resource = rule.resource ?? "ApiKey";
  const types = resource === "Team" ? TEAM_TYPES : API_KEY_TYPES;
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.enforcementLevel,
    configSchema: rule.configSchema as ResourceValidationPolicy["configSchema"],
    validateResource: (args, reportViolation) => {
      if (!types.includes(args.type)) return;
      const config = args.getConfig<Config & object>();
      for (const fix of rule.check(args.props as Props, config, { stack: stackOf(args.urn), now: new Date() })) {
        reportViolation(`${resource} "${args.name}": ${fix}`);
      }
    },
  };
}

/**
 * What is wrong with a spend policy (of a key or a team) under a maximum per window: it is missing,
 * or a window's limit is above the maximum. Either form counts: one window or several (`windows`).
 */
function spendPolicyFixes(spendPolicy: SpendPolicyProps | null | undefined, maxLimitUnits: number | undefined): string[] {
  const bound = maxLimitUnits === undefined ? "" : ` of at most "${maxLimitUnits}"`;
  const windows = spendWindowsOf(spendPolicy);
  if (windows.length === 0 || windows.some((window) => !window.limitUnits)) {
    return [`spendPolicy is missing: set spendPolicy with a limitUnits${bound}, or windows of them (spend_policy.limit_units in Python)`];
  }
  if (maxLimitUnits === undefined) return [];
  const single = spendPolicy?.windows === undefined;
  return windows
    .filter((window) => Number(window.limitUnits) > maxLimitUnits)
    .map((window) =>
      single
        ? `spendPolicy.limitUnits "${window.limitUnits}" is above the maximum "${maxLimitUnits}": lower it to "${maxLimitUnits}" or less`
        : `spendPolicy's ${window.resetPeriod} window limitUnits "${window.limitUnits}" is above the maximum "${maxLimitUnits}": lower it to "${maxLimitUnits}" or less`,
    );
}

const spendLimit: Rule<{ maxLimitUnits?: number }> = {
  name: "api-key-spend-limit",
  description: "Every key has a spend limit (spendPolicy, one window or several), each window at most maxLimitUnits credits when set.",
  enforcementLevel: "mandatory",
  configSchema: { properties: { maxLimitUnits: { type: "number", exclusiveMinimum: 0 } } },
  check: ({ spendPolicy }, { maxLimitUnits }) => spendPolicyFixes(spendPolicy, maxLimitUnits),
};

const keyTeam: Rule<{ stacks: string[] }> = {
  name: "api-key-team",
  description: "On the stacks named in stacks (none by default), every key belongs to a team (teamId), so a team's budget and limits hold for it.",
  enforcementLevel: "mandatory",
  configSchema: { properties: { stacks: { type: "array", items: { type: "string" }, default: [] } } },
  check({ teamId }, { stacks }, { stack }) {
    // A teamId not known until apply (a Team this update creates) is left unchecked by @pulumi/policy at preview, and checked at `up`.
    if (!stacks.includes(stack) || (typeof teamId === "string" && teamId !== "")) return [];
    return [`teamId is missing on stack "${stack}": set teamId to a Team's teamId, e.g. teamId: searchTeam.teamId (team_id in Python)`];
  },
};

const teamSpendLimit: Rule<{ maxLimitUnits?: number }, TeamProps> = {
  name: "team-spend-limit",
  description: "Every team has a spend limit (spendPolicy, one window or several), each window at most maxLimitUnits credits when set.",
  enforcementLevel: "mandatory",
  resource: "Team",
  configSchema: { properties: { maxLimitUnits: { type: "number", exclusiveMinimum: 0 } } },
  check: ({ spendPolicy }, { maxLimitUnits }) => spendPolicyFixes(spendPolicy, maxLimitUnits),
};

const rotation: Rule<{ maxDays: number }> = {
  name: "api-key-rotation",
  description: "Every key rotates on a schedule (rotateAfter) of at most maxDays days.",
  enforcementLevel: "mandatory",
  configSchema: { properties: { maxDays: { type: "number", exclusiveMinimum: 0, default: 90 } } },
  check({ rotateAfter }, { maxDays }) {
    if (!rotateAfter) return [`rotateAfter is missing: set rotateAfter to "${maxDays}d" or less (rotate_after in Python)`];
    const days = durationDays(rotateAfter);
    if (days === undefined) return [`rotateAfter "${rotateAfter}" is not a duration: use e.g. "30d", "12h" or "90m"`];
    if (days > maxDays) return [`rotateAfter "${rotateAfter}" is longer than ${maxDays} days: set it to "${maxDays}d" or less`];
    return [];
  },
};

const modelAllowList: Rule<{ stacks?: string[] }> = {
  name: "api-key-model-allow-list",
  description: "On the stacks named in stacks (every stack when unset), every key names the models it may call (modelPolicy allowList).",
  enforcementLevel: "mandatory",
  configSchema: { properties: { stacks: { type: "array", items: { type: "string" } } } },
  check({ modelPolicy }, { stacks }, { stack }) {
    if (stacks !== undefined && !stacks.includes(stack)) return [];
    if (modelPolicy?.mode === "allowList" && (modelPolicy.modelIds?.length ?? 0) > 0) return [];
    const found = modelPolicy?.mode ? `modelPolicy mode "${modelPolicy.mode}" lets the key call` : "modelPolicy is missing, so the key may call";
    return [`${found} every model on stack "${stack}": set modelPolicy to { mode: "allowList", modelIds: [...] } (model_policy in Python)`];
  },
};

const expiry: Rule<{ required: boolean; maxDaysAhead?: number }> = {
  name: "api-key-expiry",
  description: "Keys expire (expiresAt, when required), and no later than maxDaysAhead days from the preview when set.",
  enforcementLevel: "advisory",
  configSchema: { properties: { required: { type: "boolean", default: true }, maxDaysAhead: { type: "number", exclusiveMinimum: 0 } } },
  check({ expiresAt }, { required, maxDaysAhead }, { now }) {
    if (!expiresAt) return required ? ["expiresAt is missing: set expiresAt to an ISO 8601 instant, e.g. \"2027-01-01T00:00:00Z\" (expires_at in Python)"] : [];
    const at = Date.parse(expiresAt);
    if (Number.isNaN(at)) return [`expiresAt "${expiresAt}" is not an ISO 8601 instant: use e.g. "2027-01-01T00:00:00Z"`];
    if (maxDaysAhead !== undefined && at - now.getTime() > maxDaysAhead * 86_400_000) {
      return [`expiresAt "${expiresAt}" is more than ${maxDaysAhead} days ahead: set it no later than ${new Date(now.getTime() + maxDaysAhead * 86_400_000).toISOString()}`];
    }
    return [];
  },
};

const requiredLabels: Rule<{ labels: string[] }> = {
  name: "api-key-required-labels",
  description: "Every key carries the labels named in labels (default: team), each non-empty.",
  enforcementLevel: "mandatory",
  configSchema: { properties: { labels: { type: "array", items: { type: "string" }, default: ["team"] } } },
  check({ labels }, config) {
    const missing = config.labels.filter((label) => !labels?.[label]);
    if (missing.length === 0) return [];
    return [`labels lack ${missing.map((label) => `"${label}"`).join(", ")}: add ${missing.map((label) => `${label}: "..."`).join(", ")} to labels`];
  },
};

const rateLimit: Rule<{ maxRequestsPerMinute?: number }> = {
  name: "api-key-rate-limit",
  description: "Every key has a rate limit (rateLimitPolicy); requestsPerMinute at most maxRequestsPerMinute when set.",
  enforcementLevel: "advisory",
  configSchema: { properties: { maxRequestsPerMinute: { type: "integer", minimum: 1 } } },
  check({ rateLimitPolicy }, { maxRequestsPerMinute }) {
    if (!rateLimitPolicy) return ["rateLimitPolicy is missing: set rateLimitPolicy with e.g. requestsPerMinute: 600 (rate_limit_policy.requests_per_minute in Python)"];
    const perMinute = rateLimitPolicy.requestsPerMinute;
    if (maxRequestsPerMinute !== undefined && (perMinute === undefined || perMinute > maxRequestsPerMinute)) {
      return [`rateLimitPolicy.requestsPerMinute ${perMinute ?? "(unset)"} is not within the maximum ${maxRequestsPerMinute}: set it to ${maxRequestsPerMinute} or less`];
    }
    return [];
  },
};

/** Every rule of the pack, in the order a preview reports them. */
export const API_KEY_POLICIES: ResourceValidationPolicy[] = [
  toPolicy(spendLimit),
  toPolicy(rotation),
  toPolicy(modelAllowList),
  toPolicy(expiry),
  toPolicy(requiredLabels),
  toPolicy(rateLimit),
  toPolicy(keyTeam),
  toPolicy(teamSpendLimit),
];
