/**
 * Headless Chromium for the console's browser tests: Debian's `chromium` (scripts/setup installs
 * it), driven by playwright-core, which downloads no browser of its own.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];

function chromiumPath(): string | undefined {
  return CANDIDATES.find((path): path is string => path !== undefined && path !== "" && existsSync(path));
}

/** Why the browser tests cannot run here, or `undefined` when they can. */
export function chromiumUnavailableReason(): string | undefined {
  return chromiumPath() === undefined ? "no Chromium binary (install Debian's chromium, or set CHROMIUM_PATH)" : undefined;
}

/** Launches headless Chromium; close it when done. */
export function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(chromiumUnavailableReason());
  // --no-sandbox: the tests run as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}
