/**
 * The docs hold together: every heading of a page with a table of contents is in it, every
 * markdown link points at a file (and heading) that exists, and every citation of the docs in code
 * and docs alike — `docs/<page>.md#<anchor>`, repository-relative, the one form — names a page and
 * a section that exist. Each failure names the file, the line and what is missing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { headingsOf, linksOf, tableOfContentsOf } from "@gateway-keys/testkit/docs";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, encoding: "utf8" })
  .split("\n")
  .filter((path) => path !== "" && existsSync(join(REPO_ROOT, path)));
const markdownFiles = tracked.filter((path) => path.endsWith(".md") && !path.includes("node_modules/"));
/** Where code cites the docs: sources, scripts, configs, generated clients and documents. */
const CITING = /\.(ts|tsx|js|cjs|mjs|go|py|tf|ya?ml|json|sh|md)$/;
const citingFiles = tracked.filter((path) => CITING.test(path) && !path.startsWith("vendor/") && statSync(join(REPO_ROOT, path)).size < 2_000_000);

const anchorsCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorsCache.get(file);
  if (!anchors) {
    anchors = new Set(headingsOf(readFileSync(join(REPO_ROOT, file), "utf8")).map((heading) => heading.anchor));
    anchorsCache.set(file, anchors);
  }
  return anchors;
}

/** What is wrong with a repository-relative `file#anchor`, or undefined when it resolves. */
function problemWith(file: string, anchor: string | undefined): string | undefined {
  if (!existsSync(join(REPO_ROOT, file))) return `${file} does not exist`;
  if (anchor === undefined || anchor === "") return undefined;
  if (!file.endsWith(".md")) return undefined;
  return anchorsOf(file).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

test("every heading of a page with a table of contents is in it, and every entry is a heading of the page", () => {
  const problems: string[] = [];
  let pagesWithContents = 0;
  for (const file of markdownFiles) {
    const text = readFileSync(join(REPO_ROOT, file), "utf8");
    const contents = tableOfContentsOf(text);
    if (!contents) continue;
    pagesWithContents++;
    const headings = headingsOf(text);
    for (const heading of headings.filter((candidate) => candidate.level === 2)) {
      if (!contents.has(heading.anchor)) problems.push(`${file}: "## ${heading.text}" is missing from the table of contents`);
    }
    for (const anchor of contents) {
      if (!headings.some((heading) => heading.anchor === anchor)) problems.push(`${file}: the table of contents links #${anchor}, which is no heading`);
    }
  }
  expect(problems).toEqual([]);
  expect(pagesWithContents).toBeGreaterThanOrEqual(4);
});

test("every markdown link points at a file that exists, and at a heading of it", () => {
  const problems: string[] = [];
  let checked = 0;
  for (const file of markdownFiles) {
    for (const { target, line } of linksOf(readFileSync(join(REPO_ROOT, file), "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const resolved = path === "" ? file : relative(REPO_ROOT, join(REPO_ROOT, dirname(file), decodeURI(path)));
      const problem = problemWith(resolved, anchor);
      checked++;
      if (problem) problems.push(`${file}:${line}: [${target}]: ${problem}`);
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(200);
});

/** A citation of the docs: `docs/…/page.md` with its `#anchor`, and what follows it. */
const CITATION = /(?<![\w/.-])docs\/[\w./-]*?\.md(?:#[\w-]+)?/g;

test('every citation of the docs names a page and a section that exist, as docs/<page>.md#<anchor> — never a quoted heading', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const file of citingFiles) {
    const text = readFileSync(join(REPO_ROOT, file), "utf8");
    if (!text.includes("docs/")) continue;
    for (const match of text.matchAll(CITATION)) {
      const line = text.slice(0, match.index).split("\n").length;
      const before = text.slice(Math.max(0, match.index - 2), match.index);
      // A markdown link's target is relative to its page: the link check reads those.
      if (file.endsWith(".md") && before.endsWith("](")) continue;
      const [path, anchor] = match[0].split("#") as [string, string | undefined];
      checked++;
      const problem = problemWith(path, anchor);
      if (problem) problems.push(`${file}:${line}: ${match[0]}: ${problem}`);
      // The old form named a section by its heading in quotes, which no check could hold to the page.
      const after = text.slice(match.index + match[0].length, match.index + match[0].length + 6);
      if (/^,?\s*(\*\s*)?\\?"/.test(after) || /^\s*\(\\?"/.test(after)) {
        problems.push(`${file}:${line}: ${match[0]} names its section by a quoted heading: cite it as ${path}#<anchor>`);
      }
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(50);
});
