/**
 * Scopes a provisioning key may carry (the seed leaves their names open).
 * - `keys:read`  list and read keys
 * - `keys:write` create, change, rotate and revoke keys
 * - `usage:read` usage summary, metrics and request logs
 */
export const SCOPES = ["keys:read", "keys:write", "usage:read"] as const;
export type Scope = (typeof SCOPES)[number];
