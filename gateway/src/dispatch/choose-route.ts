import type { ProviderExchange } from "../inference/media-wire";
import type { TextEngine } from "../inference/text";
import type { ProviderTextRole, RelayWire } from "../inference/text-wires";
import type { TranslationTarget } from "../inference/translation";
import { PROVIDER_EXCHANGES, PROVIDER_TEXT_WIRES } from "../inference/wires/provider-wires";
import type { ChatRoute, ProviderRoute } from "../models/catalog";

/**
 * A route as one request takes it. A route is one of four kinds:
 * - `builtin`: a model the gateway runs itself (models/builtin/);
 * - `relay`: a provider of the client's wire, sent the request as the client wrote it but for what
 *   the gateway owns (the model, a bound), its answer passed back as it came;
 * - `translate`: a provider of another wire, sent the request read into a conversation and written
 *   on the provider's wire, its answer read back and written on the client's;
 * - `exchange`: a provider whose kind answers a media operation in another shape than the client's
 *   wire (Bedrock's Titan embeddings: one call per text), its answer written as the wire's.
 */
export type TextRoute =
  | { kind: "builtin"; engine: TextEngine; target: TranslationTarget }
  | ({ kind: "relay"; wire: RelayWire } & ProviderRoute)
  | ({ kind: "translate"; wire: ProviderTextRole; target: TranslationTarget } & ProviderRoute);

/** A media model's route as one request takes it: relayed as sent, or answered by its kind's exchange. */
export type MediaRoute = ({ kind: "relay" } & ProviderRoute) | ({ kind: "exchange"; exchange: ProviderExchange } & ProviderRoute);

/**
 * The order a request tries a model's routes in (the attempts stop at the first that answers): the
 * seam where a routing strategy — weighted, least busy, lowest latency, a route cooling down
 * skipped — decides, from the model's routes as the catalog lists them.
 */
export type RouteStrategy = <Route extends ChatRoute | ProviderRoute>(routes: readonly Route[]) => readonly Route[];

/** The routes in the order the config lists them (docs/operators/upstream.md#families-fallback-errors-and-billing). */
export const CONFIG_ORDER: RouteStrategy = (routes) => routes;

/** Whether a provider takes a request of the client's wire as sent: it speaks the wire and serves the operation (Vertex's OpenAI endpoint has no Responses). */
const relays = (route: ProviderRoute, wire: RelayWire): boolean =>
  route.provider.wire === wire.providerWire && (route.provider.relayPaths?.has(wire.path) ?? true);

/** A chat model's routes, in the strategy's order, each as a request on the client's wire (`relay`) takes it. */
export function chooseTextRoutes(routes: readonly ChatRoute[], relay: RelayWire, strategy: RouteStrategy = CONFIG_ORDER): TextRoute[] {
  return strategy(routes).map((route): TextRoute => {
    if (route.kind === "builtin") return route;
    // The quota goes with the route: its attempt takes a place in it (dispatch/router.ts).
    const { provider, model, quota } = route;
    if (relays(route, relay)) return { kind: "relay", provider, model, quota, wire: relay };
    return { kind: "translate", provider, model, quota, wire: PROVIDER_TEXT_WIRES[provider.wire], target: route.target };
  });
}

/** A forwarded media model's routes, in the strategy's order, for the operation at `path` (`/embeddings`, …). */
export function chooseMediaRoutes(routes: readonly ProviderRoute[], path: string, strategy: RouteStrategy = CONFIG_ORDER): MediaRoute[] {
  return strategy(routes).map(({ provider, model, quota }): MediaRoute => {
    const exchange = provider.endpoint.exchanges?.[path];
    return exchange === undefined ? { kind: "relay", provider, model, quota } : { kind: "exchange", provider, model, quota, exchange: PROVIDER_EXCHANGES[exchange] };
  });
}
