import {
  ROUTES,
  routePath,
  Webhook,
  WebhookDelivery,
  type CreateWebhookRequest,
  type DeletedWebhook,
  type RotateWebhookSecretRequest,
  type UpdateWebhookRequest,
  type WebhookWithSecret,
} from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import { APIPromise } from "../core/api-promise";
import { InvalidArgumentError } from "../core/errors";
import type { ListParams, PagePromise } from "../core/pagination";
import type { RequestOptions } from "../core/request-options";

/**
 * Webhook endpoints of the owner: where key alerts and audit events are POSTed, signed as Standard
 * Webhooks. Mutations carry an Idempotency-Key, the same on every retry.
 * @example
 * const hook = await client.webhooks.create({ url: "https://example.com/hooks", events: ["key.budget_threshold"] });
 * // hook.secret (whsec_…) is shown this once: store it where the receiver reads it.
 */
export class Webhooks {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.webhooks`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * Creates an endpoint; the answer holds its signing secret, shown this once.
   * @example
   * const { webhookId, secret } = await client.webhooks.create({ url, events: ["key.expiring"], labelSelector: { env: "prod" } });
   */
  create(body: CreateWebhookRequest, options?: RequestOptions): APIPromise<WebhookWithSecret> {
    const route = ROUTES.createWebhook;
    return this.#client.request({ method: route.method, path: route.path, body, auth: "provisioning", schema: route.answer.schema, options });
  }

  /**
   * Lists endpoints, oldest first. Await for a page, `for await` for every endpoint.
   * @example
   * for await (const hook of client.webhooks.list()) console.log(hook.url);
   */
  list(query: ListParams = {}, options?: RequestOptions): PagePromise<Webhook> {
    return this.#client.requestPage({ path: ROUTES.listWebhooks.path, query: { ...query }, auth: "provisioning", item: Webhook, options });
  }

  /**
   * Reads one endpoint (never its secret).
   * @example
   * const hook = await client.webhooks.get("wh_123");
   */
  get(webhookId: string, options?: RequestOptions): APIPromise<Webhook> {
    const route = ROUTES.getWebhook;
    return withWebhookId(webhookId, (id) =>
      this.#client.request({ method: route.method, path: routePath(route, { webhookId: id }), auth: "provisioning", schema: route.answer.schema, options }),
    );
  }

  /**
   * Changes url, events, label selector or enabled.
   * @throws ConflictError code `conflict` when `expectedVersion` is stale.
   * @example
   * await client.webhooks.update(hook.webhookId, { expectedVersion: hook.version, enabled: false });
   */
  update(webhookId: string, body: UpdateWebhookRequest, options?: RequestOptions): APIPromise<Webhook> {
    const route = ROUTES.updateWebhook;
    return withWebhookId(webhookId, (id) =>
      this.#client.request({ method: route.method, path: routePath(route, { webhookId: id }), body, auth: "provisioning", schema: route.answer.schema, expectedVersion: body.expectedVersion, options }),
    );
  }

  /**
   * Issues a new signing secret (shown once); the old one keeps signing beside it for `overlapSeconds` (default a day).
   * @example
   * const { secret } = await client.webhooks.rotateSecret(hook.webhookId, { expectedVersion: hook.version, overlapSeconds: 3600 });
   */
  rotateSecret(webhookId: string, body: RotateWebhookSecretRequest, options?: RequestOptions): APIPromise<WebhookWithSecret> {
    const route = ROUTES.rotateWebhookSecret;
    return withWebhookId(webhookId, (id) =>
      this.#client.request({ method: route.method, path: routePath(route, { webhookId: id }), body, auth: "provisioning", schema: route.answer.schema, expectedVersion: body.expectedVersion, options }),
    );
  }

  /**
   * Deletes an endpoint; its pending deliveries end as failed.
   * @example
   * await client.webhooks.delete("wh_123");
   */
  delete(webhookId: string, options?: RequestOptions): APIPromise<DeletedWebhook> {
    const route = ROUTES.deleteWebhook;
    return withWebhookId(webhookId, (id) =>
      this.#client.request({ method: route.method, path: routePath(route, { webhookId: id }), auth: "provisioning", schema: route.answer.schema, options }),
    );
  }

  /**
   * One endpoint's deliveries, newest first: pending, delivered and failed, with attempts and the last error.
   * @example
   * for await (const delivery of client.webhooks.deliveries("wh_123")) console.log(delivery.status, delivery.lastError);
   */
  deliveries(webhookId: string, query: ListParams = {}, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this.#client.requestPage({
      path: routePath(ROUTES.listWebhookDeliveries, { webhookId }),
      query: { ...query },
      auth: "provisioning",
      item: WebhookDelivery,
      options,
    });
  }
}

function withWebhookId<T>(webhookId: string, call: (id: string) => APIPromise<T>): APIPromise<T> {
  if (typeof webhookId !== "string" || webhookId.length === 0) {
    return new APIPromise(Promise.reject(new InvalidArgumentError("invalid_argument", "webhookId must be a non-empty string, e.g. the webhookId that create returned")));
  }
  return call(webhookId);
}
