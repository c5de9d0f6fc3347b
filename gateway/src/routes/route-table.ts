import type { onRequestAsyncHookHandler } from "fastify";
import { ROUTES, type RouteName, type RouteSpec } from "@gateway-keys/contract";
import { anonymous, optionalApiKey, requireApiKey, requireProvisioningKey } from "../auth/hooks";
import { refuseTeamViews, TEAM_VIEW_ROUTES } from "../auth/team-view";
import type { GatewayContext } from "../context";
import { requireIdempotencyKey } from "../http/idempotency-header";

/** Options every route plugin receives. */
export interface RoutePluginOptions {
  ctx: GatewayContext;
}

/** The hooks a route's `auth` (and `idempotent`) call for, in the order the checks are documented. */
function hooksFor(ctx: GatewayContext, spec: RouteSpec): onRequestAsyncHookHandler[] {
  switch (spec.auth.kind) {
    case "provisioning":
      return [
        requireProvisioningKey(ctx, spec.auth.scope),
        // A caller who may view only some teams reads only the routes that keep to them.
        ...(TEAM_VIEW_ROUTES.has(operationIdOf(spec)) ? [] : [refuseTeamViews()]),
        ...(spec.idempotent ? [requireIdempotencyKey()] : []),
      ];
    case "apiKey":
      return [requireApiKey(ctx)];
    case "optionalApiKey":
      return [optionalApiKey(ctx)];
    case "none":
      return [async (request) => ctx.credentialThrottle.take(anonymous(request), ctx.now())];
  }
}

const OPERATION_IDS = new Map<RouteSpec, RouteName>(Object.entries(ROUTES).map(([name, spec]) => [spec, name as RouteName]));

function operationIdOf(spec: RouteSpec): RouteName {
  const name = OPERATION_IDS.get(spec);
  if (name === undefined) throw new Error(`route ${spec.method} ${spec.path} is not in the contract's table`);
  return name;
}

/** The schemas of a route as Fastify (and the zod type provider, which types the handler from them) takes them. */
type SchemaOf<Spec extends RouteSpec> = { operationId: string; querystring: Spec["query"] } & (Spec extends { params: infer Params } ? { params: Params } : unknown) &
  (Spec extends { body: infer Body } ? { body: Body } : unknown) &
  (Spec extends { answer: { status: infer Status extends number; schema: infer Answer } } ? { response: { [S in Status]: Answer } } : unknown);

/**
 * The Fastify options of one route of the contract's table (contract/src/routes.ts): its method
 * and path, the hooks its credentials call for, its schemas and its error wire. Register it with
 * `app.route({ ...routeOf(ctx, ROUTES.x), handler })`; `extra` adds what only the gateway decides
 * (a body limit, OpenAPI hints).
 */
export function routeOf<Spec extends RouteSpec>(ctx: GatewayContext, spec: Spec, extra: { bodyLimit?: number; config?: object } = {}) {
  const schema = {
    // The route's name in the table: what a client generated from the OpenAPI document calls it (createKey, …).
    operationId: operationIdOf(spec),
    querystring: spec.query,
    ...(spec.params && { params: spec.params }),
    ...(spec.body && { body: spec.body }),
    ...(spec.answer && { response: { [spec.answer.status]: spec.answer.schema } }),
  } as SchemaOf<Spec>;
  return {
    method: spec.method,
    url: spec.path,
    onRequest: hooksFor(ctx, spec),
    ...(extra.bodyLimit !== undefined && { bodyLimit: extra.bodyLimit }),
    config: { ...extra.config, ...(spec.errorWire && { errorWire: spec.errorWire }) },
    // Account reads may be long (a thousand keys); compressed for a client that accepts it. Model
    // routes never are: their bytes are relayed as the provider wrote them, and streams must flow.
    ...(spec.method === "GET" && spec.auth.kind === "provisioning" && { compress: {} }),
    schema,
  };
}
