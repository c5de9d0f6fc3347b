import type { GatewayContext } from "../context";
import type { GatewayMetrics, ReservationFigures } from "./metrics";

/** The spend ledger as model calls use it, whichever implementation the store needs. */
type Ledger = GatewayContext["spend"];

/**
 * Wraps the spend ledger so the metrics see what passes through it: each reservation until it is
 * settled (`gateway_spend_reservations_in_flight`), and each recorded request by model and
 * outcome (`gateway_model_requests_total`). `knownModel` bounds the model label: the id a client
 * sent is used only when a model has it (a client could send any string, a pasted secret
 * included), otherwise `"unknown"`.
 */
export function meteredLedger(ledger: Ledger, metrics: GatewayMetrics, knownModel: (id: string) => boolean): Ledger {
  let inFlight: ReservationFigures = { count: 0, micros: 0n };
  metrics.observeReservations(() => inFlight);
  const counted = (model: string, outcome: Parameters<Ledger["settle"]>[2]) => metrics.modelRequest(knownModel(model) ? model : "unknown", outcome);
  return {
    async reserve(key, micros) {
      const reservation = await ledger.reserve(key, micros);
      if (reservation) inFlight = { count: inFlight.count + 1, micros: inFlight.micros + reservation.micros };
      return reservation;
    },
    async settle(reservation, entry, outcome) {
      try {
        await ledger.settle(reservation, entry, outcome);
        counted(entry.model, outcome);
      } finally {
        inFlight = { count: inFlight.count - 1, micros: inFlight.micros - reservation.micros };
      }
    },
    async recordUncharged(entry, outcome) {
      await ledger.recordUncharged(entry, outcome);
      counted(entry.model, outcome);
    },
  };
}
