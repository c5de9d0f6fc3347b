import {
  ApiKey,
  ApiKeyWithSecret,
  ListPage,
  PAGE_LIMIT,
  ROUTES,
  routePath,
  SpendWindow,
  type BulkRotateRequest,
  type BulkRotation,
  type CreateApiKeyRequest,
  type RotateApiKeyRequest,
  type RouteSpec,
  type UpdateApiKeyRequest,
  type VersionedRequest,
} from "@gateway-keys/contract";
import type { z } from "zod";
import type { RequestClient } from "../core/resource";
import { APIPromise } from "../core/api-promise";
import { APIError, InvalidArgumentError, NotFoundError } from "../core/errors";
import type { ListParams, PagePromise } from "../core/pagination";
import type { RequestOptions, WithResponse } from "../core/request-options";

/**
 * Regular API keys of the provisioning key's owner. Mutations carry an Idempotency-Key, the same on
 * every retry; change, rotate and revoke need the `expectedVersion` the caller last saw.
 *
 * @example
 * const key = await client.apiKeys.create({ name: "ci" });
 * const renamed = await client.apiKeys.update(key.keyId, { expectedVersion: key.version, name: "ci-2" });
 */
export class ApiKeys {
  readonly #client: RequestClient;
  /**
   * Whether the gateway offers `GET /v1/account/api-keys/{keyId}` (an extension of ours; the seed
   * contract only guarantees the list). Learned on the first `get` and kept for this client.
   */
  #singleKeyGet: "unknown" | "supported" | "unsupported" = "unknown";

  /** Built by {@link GatewayClient}; reach it as `client.apiKeys`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * Creates a key. The answer holds its `secret`, shown this once; a retried create returns the
   * same secret, because the gateway replays its answer for the same Idempotency-Key.
   * @example
   * const { keyId, secret } = await client.apiKeys.create({ name: "ci", spendPolicy: { limitUnits: "100" } });
   */
  create(body: CreateApiKeyRequest, options?: RequestOptions): APIPromise<ApiKeyWithSecret> {
    return this.#client.request({ method: ROUTES.createKey.method, path: ROUTES.createKey.path, body, auth: "provisioning", schema: ROUTES.createKey.answer.schema, options });
  }

  /**
   * Lists keys in the gateway's order. Await for one page, or `for await` for every key, pages
   * fetched as the loop reaches them. `label` narrows the list to keys with those labels:
   * `"team=search"` (that value) or `"team"` (any value); several must all match.
   * @example
   * const page = await client.apiKeys.list({ limit: 100 });
   * for await (const key of client.apiKeys.list({ label: ["team=search", "env"] })) console.log(key.keyId);
   */
  list(query: ListParams & { label?: string | readonly string[] } = {}, options?: RequestOptions): PagePromise<ApiKey> {
    return this.#client.requestPage({ path: ROUTES.listKeys.path, query: { ...query }, auth: "provisioning", item: ApiKey, options });
  }

  /**
   * The key's spend per window of its reset period, newest first (the current window always
   * included): `GET /v1/account/api-keys/{keyId}/spend-windows`.
   * @example
   * const { data } = await client.apiKeys.spendWindows("key_123", { limit: 3 });
   */
  spendWindows(keyId: string, query: { limit?: number } = {}, options?: RequestOptions): APIPromise<ListPage<SpendWindow>> {
    return withKeyId(keyId, (id) =>
      this.#client.request({
        method: ROUTES.spendWindows.method,
        path: routePath(ROUTES.spendWindows, { keyId: id }),
        query: { ...query },
        auth: "provisioning",
        schema: ROUTES.spendWindows.answer.schema,
        keyId: id,
        options,
      }),
    );
  }

  /**
   * Reads one key. Uses the single-key endpoint where the gateway has it, and otherwise (remembered
   * per client) scans the list. A key that does not exist is `NotFoundError` with code
   * `key_not_found` either way.
   * @example
   * const key = await client.apiKeys.get("key_123");
   */
  get(keyId: string, options?: RequestOptions): APIPromise<ApiKey> {
    return withKeyId(keyId, (id) => new APIPromise(this.#get(id, options)));
  }

  /**
   * Changes name, state or policies. Policies are replaced whole.
   * @throws ConflictError code `conflict` when `expectedVersion` is stale (`currentVersion` says the version now).
   * @example
   * await client.apiKeys.update(key.keyId, { expectedVersion: key.version, state: "disabled" });
   */
  update(keyId: string, body: UpdateApiKeyRequest, options?: RequestOptions): APIPromise<ApiKey> {
    return this.#versioned(ROUTES.updateKey, keyId, body, options);
  }

  /**
   * Issues a new secret in place of the old one, which stops working, at once or (gateway extension
   * `rotation_grace`) after `gracePeriodSeconds`. The new secret is shown once.
   * @example
   * const { secret, version } = await client.apiKeys.rotate(key.keyId, { expectedVersion: key.version });
   * const overlapping = await client.apiKeys.rotate(key.keyId, { expectedVersion: version, gracePeriodSeconds: 3600 });
   */
  rotate(keyId: string, body: RotateApiKeyRequest, options?: RequestOptions): APIPromise<ApiKeyWithSecret> {
    return this.#versioned(ROUTES.rotateKey, keyId, body, options);
  }

  /**
   * Gateway extension `bulk_rotation`: rotates every key whose labels meet `label` (at most 100 keys,
   * revoked ones left out) with one set of rotation terms. Call it first with `dryRun: true` to see
   * the keys, their versions, clients and last use; then again with `expectedVersions` pinning each
   * key's version as the dry run showed it. A key changed since is reported (`conflict`), never
   * overwritten. The whole rotation is one unit of work under one Idempotency-Key: a retry (this
   * SDK's own, or yours with the same `idempotencyKey`) replays the first answer, new secrets
   * included, and never rotates a key twice.
   * @example
   * const plan = await client.apiKeys.bulkRotate({ label: ["team=search"], dryRun: true });
   * const expectedVersions = Object.fromEntries(plan.keys.map((item) => [item.keyId, item.key!.version]));
   * const done = await client.apiKeys.bulkRotate({ label: ["team=search"], expectedVersions, gracePeriodSeconds: 3600 });
   * for (const item of done.keys) if (item.outcome === "rotated") deliver(item.keyId, item.secret!);
   */
  bulkRotate(body: BulkRotateRequest, options?: RequestOptions): APIPromise<BulkRotation> {
    const route = ROUTES.bulkRotateKeys;
    return this.#client.request({ method: route.method, path: route.path, body, auth: "provisioning", schema: route.answer.schema, options });
  }

  /**
   * Revokes a key for good: it never authenticates again.
   * @throws ConflictError code `key_revoked` when it already was.
   * @example
   * await client.apiKeys.revoke(key.keyId, { expectedVersion: key.version });
   */
  revoke(keyId: string, body: VersionedRequest, options?: RequestOptions): APIPromise<ApiKey> {
    return this.#versioned(ROUTES.revokeKey, keyId, body, options);
  }

  /** Change, rotate and revoke: a mutation of one key that carries the version the caller last saw. */
  #versioned<T>(
    route: Pick<RouteSpec, "method" | "path"> & { answer: { schema: z.ZodType<T> } },
    keyId: string,
    body: { expectedVersion: number },
    options: RequestOptions | undefined,
  ): APIPromise<T> {
    const { method, answer } = route;
    return withKeyId(keyId, (id) =>
      this.#client.request({ method, path: routePath(route, { keyId: id }), body, auth: "provisioning", schema: answer.schema, keyId: id, expectedVersion: body.expectedVersion, options }),
    );
  }

  async #get(keyId: string, options: RequestOptions | undefined): Promise<WithResponse<ApiKey>> {
    if (this.#singleKeyGet !== "unsupported") {
      try {
        const found = await this.#client
          .request({ method: ROUTES.getKey.method, path: routePath(ROUTES.getKey, { keyId }), auth: "provisioning", schema: ROUTES.getKey.answer.schema, keyId, options })
          .withResponse();
        this.#singleKeyGet = "supported";
        return found;
      } catch (error) {
        if (!lacksSingleKeyGet(error)) {
          if (error instanceof APIError && error.enveloped) this.#singleKeyGet = "supported";
          throw error;
        }
        this.#singleKeyGet = "unsupported";
        this.#client.log("debug", "the gateway has no single-key GET; apiKeys.get scans the list from now on", { keyId });
      }
    }
    return this.#scan(keyId, options);
  }

  /** The seed contract's way to read one key: walk the list until it shows up. */
  async #scan(keyId: string, options: RequestOptions | undefined): Promise<WithResponse<ApiKey>> {
    const first = await this.list({ limit: PAGE_LIMIT.max }, options).withResponse();
    for await (const page of first.data.iterPages()) {
      const found = page.data.find((key) => key.keyId === keyId);
      if (found) return { data: found, response: first.response };
    }
    const request = `GET ${ROUTES.listKeys.path}`;
    const message = `no key ${keyId} in this owner's list`;
    throw APIError.generate(404, { error: { type: "not_found_error", code: "key_not_found", message } }, { request, keyId });
  }
}

/**
 * The gateway does not have the single-key route: our 404 `route_not_found`, or a 404/405 that is
 * not our envelope (another gateway, or a proxy that only forwards the seed's routes).
 */
function lacksSingleKeyGet(error: unknown): boolean {
  if (!(error instanceof APIError)) return false;
  if (error instanceof NotFoundError) return error.code === "route_not_found" || !error.enveloped;
  return error.status === 405;
}

/**
 * Runs `call` with a usable keyId, or returns a rejected promise without sending anything: every
 * failure of an SDK call arrives the same way, through the promise.
 */
function withKeyId<T>(keyId: string, call: (id: string) => APIPromise<T>): APIPromise<T> {
  if (typeof keyId !== "string" || keyId.length === 0) {
    const error = new InvalidArgumentError("invalid_argument", "keyId must be a non-empty string, e.g. the keyId that create returned");
    return new APIPromise(Promise.reject(error));
  }
  return call(keyId);
}
