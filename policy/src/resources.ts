/**
 * How the pack recognises a gateway key, and what it reads of one. The pack ships on its own (users
 * install it from the release), so it imports nothing of the provider: the two type tokens are
 * repeated here, and test/policy checks them against the provider's own constants.
 */

/** The dynamic provider's `ApiKey` (`@gateway-keys/provider`). */
export const DYNAMIC_API_KEY_TYPE = "pulumi-nodejs:dynamic/gateway:ApiKey";
/** The native plugin's `ApiKey` (`gatewaykeys:index:ApiKey`, from every language's SDK). */
export const NATIVE_API_KEY_TYPE = "gatewaykeys:index:ApiKey";
export const API_KEY_TYPES: readonly string[] = [DYNAMIC_API_KEY_TYPE, NATIVE_API_KEY_TYPE];

/** The dynamic provider's `Team`. */
export const DYNAMIC_TEAM_TYPE = "pulumi-nodejs:dynamic/gateway:Team";
/** The native plugin's `Team` (`gatewaykeys:index:Team`). */
export const NATIVE_TEAM_TYPE = "gatewaykeys:index:Team";
export const TEAM_TYPES: readonly string[] = [DYNAMIC_TEAM_TYPE, NATIVE_TEAM_TYPE];

/** A spend policy as the engine sees one: the single-window form, or the windows form (`windows`). */
export interface SpendPolicyProps {
  limitUnits?: string;
  resetPeriod?: string;
  windows?: { limitUnits?: string; resetPeriod?: string }[];
}

/** The windows of a spend policy in either form (none for no policy): what a limit rule checks. */
export function spendWindowsOf(policy: SpendPolicyProps | null | undefined): { limitUnits?: string; resetPeriod: string }[] {
  if (!policy) return [];
  if (policy.windows) return policy.windows.map((window) => ({ limitUnits: window.limitUnits, resetPeriod: window.resetPeriod ?? "never" }));
  return policy.limitUnits === undefined ? [] : [{ limitUnits: policy.limitUnits, resetPeriod: policy.resetPeriod ?? "never" }];
}

/**
 * The inputs the rules read, as the engine sees them: camelCase in every language (a Python
 * program's `spend_policy` reaches the engine as `spendPolicy`).
 */
export interface ApiKeyProps {
  spendPolicy?: SpendPolicyProps | null;
  rateLimitPolicy?: { requestsPerMinute?: number; tokensPerMinute?: number; maxConcurrentRequests?: number } | null;
  modelPolicy?: { mode?: string; modelIds?: string[] } | null;
  rotateAfter?: string | null;
  expiresAt?: string | null;
  labels?: Record<string, string> | null;
  /** The team the key belongs to. */
  teamId?: string | null;
}

/** The inputs the team rules read. */
export interface TeamProps {
  spendPolicy?: SpendPolicyProps | null;
}

/** The stack a resource belongs to, from its URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
export function stackOf(urn: string): string {
  return urn.split("::")[0]!.replace(/^urn:pulumi:/, "");
}

const DURATION = /^(\d+)([mhd])$/;
const MINUTES_PER_UNIT: Record<string, number> = { m: 1, h: 60, d: 24 * 60 };

/** A duration as the provider writes one (`30d`, `12h`, `90m`) in days, or undefined when malformed. */
export function durationDays(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  return (Number(match[1]) * MINUTES_PER_UNIT[match[2]!]!) / (24 * 60);
}
