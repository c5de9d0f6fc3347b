/**
 * Headless Chromium for the console's browser tests: Debian's `chromium` (scripts/setup installs
 * it), driven by playwright-core, which downloads no browser of its own.
 */
import { chromium, type Browser } from "playwright-core";
import { chromiumPath, chromiumUnavailableReason } from "./chromium.ts";

export { chromiumUnavailableReason };

/** Launches headless Chromium; close it when done. */
export function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(chromiumUnavailableReason());
  // --no-sandbox: the tests run as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}
