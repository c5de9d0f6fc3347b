import type { Labels, ModelPolicy, RateLimitPolicy, ResetPeriod } from "@gateway-keys/contract";
import type { StoredSpendWindow } from "../metering/interfaces";
import { column, holds, TableCodec } from "./row-codec";

/** Spend windows as JSON, micro-credits as decimal strings (JSON has no bigint). */
export const spendWindowsColumn = column.custom<StoredSpendWindow[]>({
  write: (value) => JSON.stringify(value.map((window) => ({ limitMicros: window.limitMicros.toString(), resetPeriod: window.resetPeriod }))),
  read: (stored) =>
    (JSON.parse(stored as string) as { limitMicros: string; resetPeriod: ResetPeriod }[]).map((window) => ({
      limitMicros: BigInt(window.limitMicros),
      resetPeriod: window.resetPeriod,
    })),
});

/** A team's windows: NULL for no spend policy. */
const spendWindowsOrNull = column.custom<StoredSpendWindow[]>({
  write: (value) => (value.length === 0 ? null : spendWindowsColumn.write(value)),
  read: (stored) => (stored === null || stored === undefined ? [] : spendWindowsColumn.read(stored)),
});

/** A team's columns that change through the account API. */
export interface TeamUpdate {
  name: string;
  labels: Labels;
  /** Its spend policy's windows; empty for no spend policy. */
  spendWindows: StoredSpendWindow[];
  rateLimitPolicy: RateLimitPolicy | null;
  modelPolicy: ModelPolicy;
  alerts: { budgetAlertThresholds: number[] };
  version: number;
  updatedAt: number;
}

export interface NewTeam extends TeamUpdate {
  id: string;
  ownerId: string;
  createdAt: number;
}

export interface StoredTeam extends NewTeam {
  /** Creation sequence number: the order of listing and the cursor. */
  seq: number;
}

/** `teams`: limits shared by the keys whose `team_id` names the team. */
export const TEAMS = new TableCodec<StoredTeam, NewTeam, TeamUpdate>("teams", {
  seq: holds("seq", column.int, "never"),
  id: holds("id", column.text, "insert"),
  owner_id: holds("ownerId", column.text, "insert"),
  name: holds("name", column.text),
  labels: holds("labels", column.json<Labels>()),
  spend_windows: holds("spendWindows", spendWindowsOrNull),
  rate_limits: holds("rateLimitPolicy", column.nullable(column.json<RateLimitPolicy>())),
  model_mode: holds("modelPolicy.mode", column.literal<ModelPolicy["mode"]>()),
  model_ids: holds("modelPolicy.modelIds", column.json<string[]>()),
  alerts: holds("alerts", column.json<{ budgetAlertThresholds: number[] }>()),
  version: holds("version", column.int),
  created_at: holds("createdAt", column.int, "insert"),
  updated_at: holds("updatedAt", column.int),
});
