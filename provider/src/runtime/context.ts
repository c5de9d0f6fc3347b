import type { Connections } from "./connection";
import type { Diagnostics } from "./diagnostics";
import type { Owners } from "./owner";
import type { Clock } from "./time";

/** What one provider holds, handed to each operation: its connections and clients, what it learned of owners, its clock and its voice. */
export interface ProviderContext {
  readonly connections: Connections;
  readonly owners: Owners;
  /** Now, in milliseconds since the epoch: scheduled rotation reads it, never `Date.now()`. */
  readonly now: Clock;
  /** Warnings for the person running Pulumi. */
  readonly diagnostics: Diagnostics;
}
