import { createHash } from "node:crypto";
import { unwatchFile, watchFile } from "node:fs";
import type { ConfigStatus } from "@gateway-keys/contract";
import type { CooldownPolicy } from "../metering/route-health-records";
import { BUILT_IN_MODELS, type CatalogModel } from "./catalog";
import { upstreamCatalog, type UpstreamCatalog } from "./upstream-catalog";
import { cooldownPolicyOf, loadGatewayConfig, type GatewayConfig } from "./upstream-config";
import type { GatewayMetrics } from "../ops/metrics";

/**
 * How long a replaced config's providers stay open before they close: a request that looked its
 * model up just before the reload may still be on its way to them (admitted, reserving its spend);
 * a pool refuses what is sent after it began to close. Requests already sent (streams too) hold
 * the close until they end.
 */
const RETIRE_AFTER_MS = 10_000;

/** How often `--watch-config` looks at the file: a change is applied within this (and a reload's own time). */
export const CONFIG_WATCH_INTERVAL_MS = 500;

/** The version of a config: a digest of what it says, the same on every process that read the same file. */
export function configVersion(config: GatewayConfig): string {
  return createHash("sha256").update(JSON.stringify(config)).digest("hex").slice(0, 12);
}

/** The models a config serves: its own, then every built-in one whose id it does not take. */
export function servedModels(upstream: UpstreamCatalog): CatalogModel[] {
  const configured = new Set(upstream.models.map((model) => model.id));
  return [...upstream.models, ...BUILT_IN_MODELS.filter((model) => !configured.has(model.id))];
}

/** Where a reloaded config goes: the app serves its models and cooldowns from the next request on. */
export type ApplyConfig = (models: readonly CatalogModel[], cooldown: CooldownPolicy | null) => void;

/**
 * The `--config` in use, and its reloads (docs/operators/routing.md#reloading-the-config): on
 * SIGHUP or, with `--watch-config`, when the file changes, the file is read and checked as at
 * start. A file that is not valid (or names a credential variable that is not set) is refused with
 * the same message and the running config kept. A valid one opens its providers and is served from
 * the next request on; requests in flight finish on the routes they started on, and the previous
 * providers' connections close once those requests are done.
 */
export class LiveConfig {
  readonly #path: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #metrics: GatewayMetrics;
  #apply: ApplyConfig | undefined;
  #upstream: UpstreamCatalog;
  #status: ConfigStatus;
  #cooldown: CooldownPolicy | null;
  #reloading: Promise<ConfigStatus> | undefined;
  #watching = false;
  /** Previous configs' providers, closed {@link RETIRE_AFTER_MS} after they were replaced. */
  readonly #retiring = new Map<UpstreamCatalog, NodeJS.Timeout>();
  readonly #closing = new Set<Promise<void>>();

  /** Reads `path` (throwing as at start when it is not valid) and opens its providers. */
  constructor(path: string, env: NodeJS.ProcessEnv, metrics: GatewayMetrics, now: number = Date.now()) {
    this.#path = path;
    this.#env = env;
    this.#metrics = metrics;
    const config = loadGatewayConfig(path);
    this.#upstream = upstreamCatalog(config, env, metrics);
    this.#cooldown = cooldownPolicyOf(config);
    this.#status = { version: configVersion(config), loadedAt: new Date(now).toISOString(), lastReload: null };
    this.#metrics.routes.config(this.#status.version);
  }

  /** The models and cooldowns of the config in use. */
  get models(): CatalogModel[] {
    return servedModels(this.#upstream);
  }

  get cooldown(): CooldownPolicy | null {
    return this.#cooldown;
  }

  /** The version in use and the last reload's result, as `/readyz` shows them. */
  status(): ConfigStatus {
    return this.#status;
  }

  /** Where reloads go (the app, once made). */
  applyTo(apply: ApplyConfig): void {
    this.#apply = apply;
  }

  /** Re-reads the file; resolves with the status after it (one reload at a time: a signal during one waits for it). */
  reload(now: number = Date.now()): Promise<ConfigStatus> {
    const run = async (): Promise<ConfigStatus> => {
      const at = new Date(now).toISOString();
      let config: GatewayConfig;
      let upstream: UpstreamCatalog;
      try {
        config = loadGatewayConfig(this.#path);
        upstream = upstreamCatalog(config, this.#env, this.#metrics);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.#status = { ...this.#status, lastReload: { at, result: "refused", error: message } };
        this.#metrics.routes.config(this.#status.version, "refused");
        return this.#status;
      }
      const previous = this.#upstream;
      this.#upstream = upstream;
      this.#cooldown = cooldownPolicyOf(config);
      this.#apply?.(servedModels(upstream), this.#cooldown);
      this.#retire(previous);
      this.#status = { version: configVersion(config), loadedAt: at, lastReload: { at, result: "applied", error: null } };
      this.#metrics.routes.config(this.#status.version, "applied");
      return this.#status;
    };
    const reload = (this.#reloading ?? Promise.resolve()).then(run, run);
    this.#reloading = reload;
    void reload.finally(() => {
      if (this.#reloading === reload) this.#reloading = undefined;
    });
    return reload;
  }

  /** Reloads whenever the file changes (its size or modification time), checked every {@link CONFIG_WATCH_INTERVAL_MS}. */
  watch(onReload: (status: ConfigStatus) => void): void {
    this.#watching = true;
    watchFile(this.#path, { interval: CONFIG_WATCH_INTERVAL_MS, persistent: false }, (current, before) => {
      if (current.mtimeMs === before.mtimeMs && current.size === before.size) return;
      this.reload().then(onReload, () => undefined);
    });
  }

  /** Closes a replaced config's providers once nothing can still be on its way to them. */
  #retire(previous: UpstreamCatalog): void {
    const timer = setTimeout(() => this.#closeRetired(previous), RETIRE_AFTER_MS);
    timer.unref();
    this.#retiring.set(previous, timer);
  }

  #closeRetired(previous: UpstreamCatalog): Promise<void> {
    clearTimeout(this.#retiring.get(previous));
    this.#retiring.delete(previous);
    // undici's close waits for the requests on each pool (streams included) before it closes.
    const closing = previous.close().catch(() => undefined);
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
    return closing;
  }

  /** Stops watching; closes the providers, the replaced ones' too (each once its requests end). */
  async close(): Promise<void> {
    if (this.#watching) unwatchFile(this.#path);
    await this.#reloading?.catch(() => undefined);
    const retired = [...this.#retiring.keys()].map((previous) => this.#closeRetired(previous));
    await Promise.all([this.#upstream.close(), ...retired, ...this.#closing]);
  }
}
