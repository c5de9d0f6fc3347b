import * as grpc from "@grpc/grpc-js";
import * as pulumi from "@pulumi/pulumi";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import type { ConfigSource } from "../runtime/connection";
import type { PropertyChange } from "./handler";
import type { GatewayKeysProvider } from "./provider";
import { revealed } from "./secrets";

type Call<Request> = { request: Request };
type Callback<Response> = (error: unknown, response?: Response) => void;
type Handlers = Record<string, (...args: never[]) => unknown>;

const KINDS: Record<PropertyChange, provproto.PropertyDiff.Kind> = {
  add: provproto.PropertyDiff.Kind.ADD,
  "add-replace": provproto.PropertyDiff.Kind.ADD_REPLACE,
  delete: provproto.PropertyDiff.Kind.DELETE,
  "delete-replace": provproto.PropertyDiff.Kind.DELETE_REPLACE,
  update: provproto.PropertyDiff.Kind.UPDATE,
  "update-replace": provproto.PropertyDiff.Kind.UPDATE_REPLACE,
};

/** Prints an error the way `@pulumi/pulumi`'s own handlers do (so the runtime's print-once filter recognises it), then fails the call. */
function fail(callback: Callback<never>, error: unknown): void {
  const e = error as Error;
  console.error(`${e}: ${e.stack}`);
  callback(e);
}

/**
 * The gRPC handlers the provider server of `@pulumi/pulumi` 3.259 gets wrong for us, in place of its
 * own (sdk/nodejs/provider/server.ts of pulumi/pulumi):
 *
 * - `read`: it calls `req.getProperties().toJavaScript()`, and `pulumi import` sends a ReadRequest
 *   with no properties (the engine knows only the id), so every import crashes with "Cannot read
 *   properties of undefined (reading 'toJavaScript')" before the provider is asked. Ours reads the
 *   properties when they are there and passes `undefined` otherwise.
 * - `configure`: it answers without handing the configuration to the provider (the interface has
 *   no `configure`), so `gatewaykeys:baseUrl` would never reach it. Ours passes the variables and
 *   arguments on, and declines resource references and output values, which this provider never needs.
 * - `create` and `update` in a preview: see below.
 * - `diff`: it drops everything but changes/replaces/deleteBeforeReplace, so the engine never sees a
 *   detailed diff and `replaceOnChanges` cannot match a property. Ours sends the detailed diff.
 */
export function handlerOverrides(provider: GatewayKeysProvider, original: Handlers): Handlers {
  return {
    // With previews supported, the engine calls create and update in a preview too, with
    // `preview` set, which the server's own handlers neither read nor pass on: answered here,
    // with no gateway call; the real operations go to the server's handlers.
    create(call: Call<provproto.CreateRequest>, callback: Callback<provproto.CreateResponse>) {
      if (!call.request.getPreview()) return original.create!(call as never, callback as never);
      const response = new provproto.CreateResponse();
      response.setId("");
      response.setProperties(call.request.getProperties() ?? new structproto.Struct());
      callback(undefined, response);
    },

    update(call: Call<provproto.UpdateRequest>, callback: Callback<provproto.UpdateResponse>) {
      if (!call.request.getPreview()) return original.update!(call as never, callback as never);
      try {
        const request = call.request;
        const planned = provider.planUpdate(request.getUrn(), request.getOlds()?.toJavaScript(), request.getNews()?.toJavaScript());
        const response = new provproto.UpdateResponse();
        response.setProperties(structproto.Struct.fromJavaScript(planned as never));
        callback(undefined, response);
      } catch (error) {
        fail(callback, error);
      }
    },

    configure(call: Call<provproto.ConfigureRequest>, callback: Callback<provproto.ConfigureResponse>) {
      try {
        provider.configure(configSource(call.request));
        const response = new provproto.ConfigureResponse();
        response.setAcceptsecrets(true);
        response.setAcceptresources(false);
        response.setAcceptoutputs(false);
        // The engine then asks create and update for their plan in a preview (below), which is how
        // a preview learns that a rotation leaves the secret unknown.
        response.setSupportspreview(true);
        callback(undefined, response);
      } catch (error) {
        fail(callback, error);
      }
    },

    async diff(call: Call<provproto.DiffRequest>, callback: Callback<provproto.DiffResponse>) {
      try {
        const request = call.request;
        const result = await provider.diff(request.getId(), request.getUrn(), request.getOlds()?.toJavaScript(), request.getNews()?.toJavaScript());
        const response = new provproto.DiffResponse();
        response.setChanges(result.changes ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE);
        response.setReplacesList(result.replaces ?? []);
        response.setDeletebeforereplace(result.deleteBeforeReplace ?? false);
        response.setDiffsList(Object.keys(result.detailedDiff));
        response.setHasdetaileddiff(true);
        const detailed = response.getDetaileddiffMap();
        for (const [path, change] of Object.entries(result.detailedDiff)) {
          const diff = new provproto.PropertyDiff();
          diff.setKind(KINDS[change]);
          // `secret` and the credential hint are outputs: the plan compares them with the planned outputs (see update above).
          diff.setInputdiff(path !== "secret" && path !== "provisioningKeyHint");
          detailed.set(path, diff);
        }
        callback(undefined, response);
      } catch (error) {
        fail(callback, error);
      }
    },

    async read(call: Call<provproto.ReadRequest>, callback: Callback<provproto.ReadResponse>) {
      try {
        const request = call.request;
        const result = await provider.read(request.getId(), request.getUrn(), request.getProperties()?.toJavaScript());
        const response = new provproto.ReadResponse();
        response.setId(result.id ?? "");
        if (result.props) response.setProperties(structproto.Struct.fromJavaScript(result.props));
        if (result.inputs) response.setInputs(structproto.Struct.fromJavaScript(result.inputs));
        callback(undefined, response);
      } catch (error) {
        fail(callback, error);
      }
    },
  };
}

/** The configuration as the runtime reads it: `gatewaykeys:baseUrl`..., from the request's arguments or variables. */
function configSource(request: provproto.ConfigureRequest): ConfigSource {
  const args = (revealed(request.getArgs()?.toJavaScript() ?? {}) ?? {}) as Record<string, unknown>;
  const variables = request.getVariablesMap();
  return {
    get(key: string): string | undefined {
      const [namespace, name] = key.split(":");
      // Arguments carry the explicit provider's inputs and the stack config, unprefixed; the
      // variables map the same, as `gatewaykeys:baseUrl` (or `gatewaykeys:config:baseUrl` from older engines).
      const value = args[name!] ?? variables.get(key) ?? variables.get(`${namespace}:config:${name}`);
      return value === undefined || value === null ? undefined : String(value);
    },
  };
}

/**
 * Serves `provider` with `pulumi.provider.main`, with {@link handlerOverrides} in place of the
 * server's own handlers. `main` builds its server object internally and registers it with
 * `grpc.Server.addService`; wrapping that one registration is the only seam it leaves, and it
 * leaves `node_modules` untouched.
 */
export async function serve(provider: GatewayKeysProvider, args: string[]): Promise<void> {
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (this: grpc.Server, service, implementation) {
    const original = bindAll(implementation) as Handlers;
    addService.call(this, service, { ...original, ...handlerOverrides(provider, original) } as grpc.UntypedServiceImplementation);
  };
  try {
    await pulumi.provider.main(provider, args);
  } finally {
    grpc.Server.prototype.addService = addService;
  }
}

/** The handlers of a class instance as plain bound functions (spreading an instance would drop its prototype's methods). */
function bindAll(implementation: grpc.UntypedServiceImplementation): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (let proto = Object.getPrototypeOf(implementation); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = (implementation as Record<string, unknown>)[name];
      if (name !== "constructor" && typeof handler === "function" && !(name in bound)) bound[name] = handler.bind(implementation);
    }
  }
  return bound;
}
