/**
 * Where Debian's `chromium` is (scripts/setup installs it), apart from playwright-core: every test
 * file asks whether it is there (test/support/needs.ts), and loading playwright-core's bundles for
 * that would take a noticeable part of a second each time.
 */
import { existsSync } from "node:fs";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];

export function chromiumPath(): string | undefined {
  return CANDIDATES.find((path): path is string => path !== undefined && path !== "" && existsSync(path));
}

/** Why the browser tests cannot run here, or `undefined` when they can. */
export function chromiumUnavailableReason(): string | undefined {
  return chromiumPath() === undefined ? "no Chromium binary (install Debian's chromium, or set CHROMIUM_PATH)" : undefined;
}
