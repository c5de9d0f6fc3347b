/**
 * How the gateway counts tokens of text it generates or reads itself (built-in models, and
 * bounds before a request runs): a token is a run of letters or digits, or one other visible
 * character, so "Hello, world!" is 4 tokens. Deterministic and close enough to real tokenisers for
 * pricing stand-ins; an upstream's own usage figures win whenever it reports them.
 */
const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

export function countTokens(text: string): number {
  let count = 0;
  for (const _ of text.matchAll(TOKEN)) count++;
  return count;
}

/**
 * Splits text into pieces of one token each, with the whitespace before a token kept on it, so the
 * pieces concatenate back to the text (as stream deltas do). Trailing whitespace joins the last.
 */
export function tokenPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const match of text.matchAll(TOKEN)) {
    const end = match.index + match[0].length;
    pieces.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) {
    if (pieces.length === 0) pieces.push(text.slice(start));
    else pieces[pieces.length - 1] += text.slice(start);
  }
  return pieces;
}
