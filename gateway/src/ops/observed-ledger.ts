import type { GatewayMetrics, ReservationFigures } from "./metrics";
import type { Ledger } from "../metering/ledger";

/**
 * Wraps the spend ledger so the metrics see what passes through it: each reservation until it is
 * settled (`gateway_spend_reservations_in_flight`), and each recorded request by model and
 * outcome (`gateway_model_requests_total`). `knownModel` bounds the model label: the id a client
 * sent is used only when a model has it (a client could send any string, a pasted secret
 * included), otherwise `"unknown"`.
 */
export function observedLedger(ledger: Ledger, metrics: GatewayMetrics, knownModel: (id: string) => boolean): Ledger {
  let inFlight: ReservationFigures = { count: 0, micros: 0n };
  metrics.observeReservations(() => inFlight);
  const counted = (entry: Parameters<Ledger["settle"]>[1], outcome: Parameters<Ledger["settle"]>[2]) => {
    metrics.modelRequest(knownModel(entry.model) ? entry.model : "unknown", outcome);
    if (entry.teamId !== null) metrics.teamRequest(entry.teamId, outcome, entry.costMicros);
  };
  return {
    headroom: (key, at) => ledger.headroom(key, at),
    refusal: (key, micros, at) => ledger.refusal(key, micros, at),
    async reserve(key, micros, at) {
      const reservation = await ledger.reserve(key, micros, at);
      if (reservation) inFlight = { count: inFlight.count + 1, micros: inFlight.micros + reservation.micros };
      return reservation;
    },
    async settle(reservation, entry, outcome) {
      try {
        await ledger.settle(reservation, entry, outcome);
        counted(entry, outcome);
      } finally {
        inFlight = { count: inFlight.count - 1, micros: inFlight.micros - reservation.micros };
      }
    },
    async recordUncharged(entry, outcome) {
      await ledger.recordUncharged(entry, outcome);
      counted(entry, outcome);
    },
  };
}
