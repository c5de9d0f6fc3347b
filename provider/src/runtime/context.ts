import type { Connections } from "./connection";
import type { Owners } from "./owner";

/** What one provider holds, handed to each operation: its connections and clients, and what it learned of owners. */
export interface ProviderContext {
  readonly connections: Connections;
  readonly owners: Owners;
}
