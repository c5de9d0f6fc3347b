import { newId } from "../crypto";
import type { StoredWebhook } from "../store/events/event-rows";
import type { StoreTransaction } from "../store/types";

/** One event to announce: its type, the owner, the labels of the key it is about (null: no key), its `data`. */
export interface OutgoingEvent {
  ownerId: string;
  type: string;
  keyLabels: Record<string, string> | null;
  data: unknown;
  at: number;
}

/**
 * Whether an endpoint hears of an event: subscribed to its type, and its label selector met by the
 * key's labels (an empty selector hears of everything, a non-empty one only of matching keys).
 */
export function subscribes(webhook: Pick<StoredWebhook, "events" | "labelSelector">, type: string, keyLabels: Record<string, string> | null): boolean {
  if (!webhook.events.includes(type)) return false;
  const selector = Object.entries(webhook.labelSelector);
  if (selector.length === 0) return true;
  return keyLabels !== null && selector.every(([name, value]) => keyLabels[name] === value);
}

/**
 * Puts an event in the outbox in the caller's unit of work — the event row and one pending
 * delivery per endpoint that hears of it — so it is sent if and only if the change that made it
 * commits. The body is fixed here, so every attempt sends the same bytes under the same
 * `webhook-id`. Returns the event's id, or null when no endpoint hears of it (nothing is stored).
 */
export async function enqueueEvent(tx: StoreTransaction, event: OutgoingEvent): Promise<string | null> {
  const listeners = (await tx.events.enabledWebhooks(event.ownerId)).filter((webhook) => subscribes(webhook, event.type, event.keyLabels));
  if (listeners.length === 0) return null;
  const id = newId("evt");
  const payload = JSON.stringify({ id, type: event.type, timestamp: new Date(event.at).toISOString(), data: event.data });
  await tx.events.insertEvent({ id, ownerId: event.ownerId, type: event.type, payload, createdAt: event.at });
  for (const webhook of listeners) await tx.events.insertDelivery({ id: newId("dlv"), webhookId: webhook.id, eventId: id, createdAt: event.at });
  return id;
}
