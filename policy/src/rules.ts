import type { EnforcementLevel, ResourceValidationPolicy } from "@pulumi/policy";
import { API_KEY_TYPES, durationDays, stackOf, type ApiKeyProps } from "./resources";

/**
 * One rule: its name (what `--policy-pack-config` keys its settings by), default level, the
 * settings it accepts (JSON schema) and the check, which returns the fix for each violation.
 */
interface Rule<Config> {
  name: string;
  description: string;
  enforcementLevel: EnforcementLevel;
  configSchema: { properties: Record<string, object> };
  check(props: ApiKeyProps, config: Config, context: { stack: string; now: Date }): string[];
}

/** The rule as @pulumi/policy runs it: every ApiKey, dynamic or native, checked; one message per fix. */
function toPolicy<Config>(rule: Rule<Config>): ResourceValidationPolicy {
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.enforcementLevel,
    configSchema: rule.configSchema as ResourceValidationPolicy["configSchema"],
    validateResource: (args, reportViolation) => {
      if (!API_KEY_TYPES.includes(args.type)) return;
      const config = args.getConfig<Config & object>();
      for (const fix of rule.check(args.props as ApiKeyProps, config, { stack: stackOf(args.urn), now: new Date() })) {
        reportViolation(`ApiKey "${args.name}": ${fix}`);
      }
    },
  };
}

const spendLimit: Rule<{ maxLimitUnits?: number }> = {
  name: "api-key-spend-limit",
  description: "Every key has a spend limit (spendPolicy), at most maxLimitUnits credits when set.",
  enforcementLevel: "mandatory",
  configSchema: { properties: { maxLimitUnits: { type: "number", exclusiveMinimum: 0 } } },
  check({ spendPolicy }, { maxLimitUnits }) {
    const bound = maxLimitUnits === undefined ? "" : ` of at most "${maxLimitUnits}"`;
    if (!spendPolicy?.limitUnits) return [`spendPolicy is missing: set spendPolicy with a limitUnits${bound} (spend_policy.limit_units in Python)`];
    if (maxLimitUnits !== undefined && Number(spendPolicy.limitUnits) > maxLimitUnits) {
      return [`spendPolicy.limitUnits "${spendPolicy.limitUnits}" is above the maximum "${maxLimitUnits}": lower it to "${maxLimitUnits}" or less`];
    }
    return [];
  },
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
];
