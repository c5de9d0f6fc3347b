/**
 * The one dispatch of every model call (gateway/src/dispatch/): which kind of route a request
 * takes on each of a model's routes, and the one attempt loop with its observer hook — the seams a
 * routing strategy and per-attempt tracing plug into. The routes' calls themselves are proven over
 * HTTP by the forwarding, bedrock, vertex, azure and media suites.
 */
import { GatewayError } from "@gateway-keys/gateway";
import { attemptRoutes, type AttemptOutcome } from "@gateway-keys/gateway/dist/dispatch/attempts";
import { chooseMediaRoutes, chooseTextRoutes } from "@gateway-keys/gateway/dist/dispatch/choose-route";
import { CHAT_COMPLETIONS } from "@gateway-keys/gateway/dist/inference/wires/chat/wire";
import { RESPONSES } from "@gateway-keys/gateway/dist/inference/wires/responses/wire";
import { PROVIDER_EXCHANGES } from "@gateway-keys/gateway/dist/inference/wires/provider-wires";
import { builtInTarget } from "@gateway-keys/gateway/dist/inference/translation";
import type { ChatRoute } from "@gateway-keys/gateway/dist/models/catalog";
import type { UpstreamProvider } from "@gateway-keys/gateway/dist/upstream/send";

/** A provider as the catalog holds one; only what route choice reads is real. */
function provider(name: string, wire: UpstreamProvider["wire"], extra: Partial<UpstreamProvider> = {}): UpstreamProvider {
  return { name, kind: wire, wire, timeoutMs: 1000, pool: undefined as never, endpoint: { prepare: () => ({ path: "/", headers: {}, body: "" }), events: async function* () {}, secrets: () => [] }, ...extra };
}

const target = builtInTarget("m");
const engine = { complete: async () => Promise.reject(new Error("not run")), stream: async function* () {} };

/** An observer that writes down each attempt's start and end. */
function recorder() {
  const heard: string[] = [];
  const observer = {
    started(route: string, index: number) {
      heard.push(`start ${route} #${index}`);
      return { ended: (outcome: AttemptOutcome) => heard.push(`end ${route} ${outcome.answered ? "answered" : (outcome.error as GatewayError).code}`) };
    },
  };
  return { heard, observer };
}

const signal = new AbortController().signal;
const failed = () => Promise.reject(new GatewayError("upstream_failed", "reset"));
const refused = () => Promise.reject(new GatewayError("validation_failed", "Invalid fields: top_k."));

describe("choosing a request's routes", () => {
  test("a provider of the client's wire relays, one of another wire translates, a built-in model stays built-in, in the config's order", () => {
    const routes: ChatRoute[] = [
      { kind: "provider", provider: provider("oa", "openai"), model: "gpt", target },
      { kind: "provider", provider: provider("an", "anthropic"), model: "claude", target },
      { kind: "builtin", engine, target },
    ];
    const chosen = chooseTextRoutes(routes, CHAT_COMPLETIONS.relay);
    expect(chosen.map((route) => route.kind)).toEqual(["relay", "translate", "builtin"]);
    expect(chosen[1]).toMatchObject({ kind: "translate", model: "claude", wire: { path: "/v1/messages" } });
  });

  test("a provider of the client's wire that lacks the operation translates to its wire's provider side (Vertex's OpenAI endpoint has no Responses)", () => {
    const vertex = provider("vx", "openai", { relayPaths: new Set(["/chat/completions"]) });
    const [route] = chooseTextRoutes([{ kind: "provider", provider: vertex, model: "google/gemini", target }], RESPONSES.relay);
    expect(route).toMatchObject({ kind: "translate", wire: { path: "/chat/completions" } });
  });

  test("a media operation its kind answers by exchange takes the named exchange; any other is relayed", () => {
    const bedrock = provider("br", "converse", { endpoint: { ...provider("x", "openai").endpoint, exchanges: { "/embeddings": "titan-embeddings" } } });
    const chosen = chooseMediaRoutes([{ provider: bedrock, model: "titan" }, { provider: provider("oa", "openai"), model: "te3" }], "/embeddings");
    expect(chosen).toMatchObject([{ kind: "exchange", exchange: PROVIDER_EXCHANGES["titan-embeddings"] }, { kind: "relay", model: "te3" }]);
  });
});

describe("the attempt loop", () => {
  test("tries the next route after a route failure, stops at the first answer, and the observer hears each attempt start and end", async () => {
    const { heard, observer } = recorder();
    const answer = await attemptRoutes(["a", "b", "c"], (route) => (route === "a" ? failed() : Promise.resolve(`from ${route}`)), { signal, observer });
    expect(answer).toBe("from b");
    expect(heard).toEqual(["start a #0", "end a upstream_failed", "start b #1", "end b answered"]);
  });

  test("throws the first route's refusal of the request at once, trying no other", async () => {
    const { heard, observer } = recorder();
    await expect(attemptRoutes(["a", "b"], refused, { signal, observer, skipLaterRefusals: true })).rejects.toMatchObject({ code: "validation_failed" });
    expect(heard).toEqual(["start a #0", "end a validation_failed"]);
  });

  test("skips a later route's refusal when told to, and throws the last route failure when no route answered", async () => {
    const attempt = (route: string) => (route === "b" ? refused() : failed());
    await expect(attemptRoutes(["a", "b", "c"], attempt, { signal, skipLaterRefusals: true })).rejects.toMatchObject({ code: "upstream_failed" });
    await expect(attemptRoutes(["a", "b", "c"], attempt, { signal })).rejects.toMatchObject({ code: "validation_failed" });
  });

  test("tries no further route once the client has left", async () => {
    const gone = new AbortController();
    const tried: string[] = [];
    const attempt = (route: string) => {
      tried.push(route);
      gone.abort();
      return failed();
    };
    await expect(attemptRoutes(["a", "b"], attempt, { signal: gone.signal })).rejects.toMatchObject({ code: "upstream_failed" });
    expect(tried).toEqual(["a"]);
  });
});
