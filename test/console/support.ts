/**
 * What the console's browser tests share: a gateway with the console on and real traffic, and the
 * page checks no single page owns (contrast, the security of what the browser holds).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

// The browser globals of the code page.evaluate runs in the page (this program is typed for Node).
declare const document: any, window: any, getComputedStyle: any, NodeFilter: any, localStorage: any, sessionStorage: any;
type Element = any;

/** Where the run's screenshots go (not tracked: a run makes them anew). */
export const SCREENSHOTS = join(REPO_ROOT, "test-results", "console");

/** Saves a screenshot of the page (the whole page, or only the window for a page thousands of rows long). */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

/**
 * Every visible text of the page whose colour on its background has a contrast ratio below WCAG's
 * AA (4.5:1, or 3:1 for large text): the ratio computed from the computed colours, the background
 * being the nearest ancestor's that is not transparent.
 */
export function lowContrastTexts(page: Page): Promise<{ text: string; ratio: number }[]> {
  return page.evaluate(() => {
    const rgb = (color: string): [number, number, number, number] => {
      const parts = color.match(/[\d.]+/g)!.map(Number);
      return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
    };
    const luminance = ([r, g, b]: number[]) =>
      [r!, g!, b!].map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i]!, 0);
    const backgroundOf = (element: Element | null): number[] => {
      for (let at = element; at; at = at.parentElement) {
        const color = rgb(getComputedStyle(at).backgroundColor);
        if (color[3] > 0) return color;
      }
      return [255, 255, 255, 1];
    };
    const found: { text: string; ratio: number }[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim();
      const element = node.parentElement;
      if (!text || !element) continue;
      const style = getComputedStyle(element);
      const box = element.getBoundingClientRect();
      if (style.visibility === "hidden" || style.display === "none" || box.width === 0 || box.left < -1000) continue;
      const [fore, back] = [luminance(rgb(style.color)), luminance(backgroundOf(element))];
      const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
      const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) found.push({ text: text.slice(0, 40), ratio: Math.round(ratio * 100) / 100 });
    }
    return found;
  });
}

/** The element that has the keyboard focus, described. */
export function focused(page: Page): Promise<{ tag: string; text: string; outline: string }> {
  return page.evaluate(() => {
    const element = document.activeElement;
    const style = element ? getComputedStyle(element) : undefined;
    return { tag: element?.tagName.toLowerCase() ?? "", text: (element?.textContent ?? "").trim().slice(0, 60), outline: style ? `${style.outlineStyle} ${style.outlineWidth}` : "" };
  });
}
