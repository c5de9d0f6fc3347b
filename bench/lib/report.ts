/** Small helpers every benchmark uses to time work and print its table. */

/** Median of a list of numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall time of `work` in milliseconds. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** Prints rows as an aligned text table with a title. */
export function printTable(title: string, rows: ReadonlyArray<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? "")));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) => `| ${values.map((value, i) => value.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\n${title}`);
  console.log(line(columns));
  console.log(line(widths.map((width) => "-".repeat(width))));
  for (const row of cells) console.log(line(row));
}
