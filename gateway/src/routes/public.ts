import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { GatewayInfo, ListPage, Model, ROUTES } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import { modelAllowed } from "../policies/model-policy";
import type { StoredApiKey } from "../store/types";
import { routeOf, type RoutePluginOptions } from "./route-table";

/** What this gateway offers beyond the seed contract; clients may check before using it. */
export const EXTENSIONS = [
  "single_key_get", // GET /v1/account/api-keys/{keyId}
  "disabled_state", // state "disabled" settable with PATCH
  "create_with_state", // POST /v1/account/api-keys may set state "disabled"
  "model_allow_list", // modelPolicy.mode "allowList"
  "usage_metrics", // GET /v1/account/metrics
  "request_logs", // GET /v1/account/logs
  "whoami", // GET /v1/account/whoami
  "client_reference", // create with clientReference: unique among the owner's live keys; 409 names the holder
  "rotation_grace", // rotate with gracePeriodSeconds: the replaced secret works until previousSecretExpiresAt
  "secret_use", // currentSecret / previousSecret on the key record; rotate with retireWhenIdleSeconds, inUseWarningSeconds
  "bulk_rotation", // POST /v1/account/api-keys/bulk-rotate: rotate the keys a label selector selects, after a dry run
  "teams", // /v1/account/teams: spend, rate and model limits shared by keys (teamId); spend policies of several windows
] as const;

/** The gateway's version, from its package.json. */
export function packageVersion(): string {
  try {
    // dist/routes/public.js → gateway/package.json
    return (JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}

/** `GET /v1/models` and `GET /v1/startups`. */
export const publicRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  const info: GatewayInfo = {
    object: "gateway_info",
    name: "gateway-keys",
    version: packageVersion(),
    apiVersion: "v1",
    extensions: [...EXTENSIONS],
  };

  /**
   * Whether a model is one `key` may call: its own model policy and, for a key in a team, its
   * team's ceiling too (as a model request is admitted); without a key, every model.
   */
  const callableBy = async (key: StoredApiKey | null): Promise<(modelId: string) => boolean> => {
    if (!key) return () => true;
    const team = key.teamId === null ? undefined : await ctx.teams.find(key.ownerId, key.teamId);
    return (modelId) => modelAllowed(key, modelId) && (!team || modelAllowed(team, modelId));
  };

  app.route({
    ...routeOf(ctx, ROUTES.models),
    handler: async (request): Promise<ListPage<Model>> => {
      const mayCall = await callableBy(request.apiKey);
      // With a key, list what that key may call; without one, everything.
      const data = ctx.models.list().filter((model) => mayCall(model.id));
      return { object: "list", data, has_more: false, next_cursor: null };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.model),
    handler: async (request): Promise<Model> => {
      const mayCall = await callableBy(request.apiKey);
      const model = ctx.models.list().find((listed) => listed.id === request.params.model);
      // A model the key may not call is not shown to it, as in the list.
      if (!model || !mayCall(model.id)) {
        throw new GatewayError("model_not_found", `No model ${JSON.stringify(request.params.model)}; GET /v1/models lists the models.`, { param: "model" });
      }
      return model;
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.startups),
    handler: async () => info,
  });
};
