import { AuditEvent, ROUTES, type AuditAction, type AuditVerification } from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import type { APIPromise } from "../core/api-promise";
import type { ListParams, PagePromise } from "../core/pagination";
import type { RequestOptions } from "../core/request-options";

/**
 * Query of `auditEvents.list`: a page size and cursor, narrowed by key, action and time range
 * (`from` inclusive, `to` exclusive, ISO 8601).
 * @example
 * const query: AuditEventsListQuery = { keyId: "key_123", action: "rotate" };
 */
export interface AuditEventsListQuery extends ListParams {
  keyId?: string;
  action?: AuditAction;
  from?: string;
  to?: string;
}

/**
 * The owner's audit trail: every key and webhook change, with its actor, newest first.
 * @example
 * for await (const event of client.auditEvents.list({ keyId })) console.log(event.action, event.actor.hint);
 * const { valid } = await client.auditEvents.verify();
 */
export class AuditEvents {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.auditEvents`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * `GET /v1/account/audit-events`: await for a page, `for await` for every event.
   * @example
   * const page = await client.auditEvents.list({ action: "revoke", limit: 10 });
   */
  list(query: AuditEventsListQuery = {}, options?: RequestOptions): PagePromise<AuditEvent> {
    return this.#client.requestPage({ path: ROUTES.listAuditEvents.path, query: { ...query }, auth: "provisioning", item: AuditEvent, options });
  }

  /**
   * `GET /v1/account/audit-events/verify`: whether the owner's chain of events is intact.
   * @example
   * const verdict = await client.auditEvents.verify();
   * if (!verdict.valid) console.error(`audit chain broken at seq ${verdict.brokenAtSeq}: ${verdict.problem}`);
   */
  verify(options?: RequestOptions): APIPromise<AuditVerification> {
    const route = ROUTES.verifyAuditEvents;
    return this.#client.request({ method: route.method, path: route.path, auth: "provisioning", schema: route.answer.schema, options });
  }
}
