import type { Part, Turn } from "./text";

/**
 * Adds parts to a conversation as a turn of `role`, joining the last turn when it has the same
 * role: the wires differ in where tool results stand (a message of their own, or blocks of a user
 * turn), and one turn per role change is the form both providers accept.
 */
export function appendTurn(turns: Turn[], role: Turn["role"], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = turns[turns.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else turns.push({ role, parts });
}
