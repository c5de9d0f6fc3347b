import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ChatCompletion, MessageObject, ResponseObject, ROUTES } from "@gateway-keys/contract";
import { runTextCall } from "../pipeline/text-call";
import { CHAT_COMPLETIONS } from "../inference/wires/chat/wire";
import { MESSAGES } from "../inference/wires/messages/wire";
import { RESPONSES } from "../inference/wires/responses/wire";
import { routeOf, type RoutePluginOptions } from "./route-table";

/** Text-generation bodies carry whole conversations (and images): larger than account bodies. */
const TEXT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

declare module "fastify" {
  interface FastifyContextConfig {
    /** The error body a route answers with: ours (the OpenAI shape) by default, or Anthropic's. */
    errorWire?: "anthropic";
  }
}

/**
 * The three text wires — `POST /v1/chat/completions`, `/v1/responses` and `/v1/messages` — over
 * one pipeline (pipeline/text-call.ts): any chat model answers on any of them, whole or streamed.
 * The 200 schemas describe the answers the gateway builds; an answer relayed from a provider of
 * the client's wire is sent as the provider wrote it.
 */
export const textGenerationRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {

  app.route({
    ...routeOf(ctx, ROUTES.chatCompletions, { bodyLimit: TEXT_BODY_LIMIT_BYTES }),
    handler: async (request, reply) => runTextCall(ctx, request, reply, CHAT_COMPLETIONS, request.body) as Promise<ChatCompletion>,
  });

  app.route({
    ...routeOf(ctx, ROUTES.responses, { bodyLimit: TEXT_BODY_LIMIT_BYTES }),
    handler: async (request, reply) => runTextCall(ctx, request, reply, RESPONSES, request.body) as Promise<ResponseObject>,
  });

  app.route({
    ...routeOf(ctx, ROUTES.messages, { bodyLimit: TEXT_BODY_LIMIT_BYTES }),
    handler: async (request, reply) => runTextCall(ctx, request, reply, MESSAGES, request.body) as Promise<MessageObject>,
  });
};
