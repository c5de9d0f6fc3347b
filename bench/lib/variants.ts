/**
 * Whether a bench measures the variant `name`: every variant unless `BENCH_VARIANTS` names some
 * (comma-separated), and those in `always` (the baseline a ratio needs, the control that shows
 * the noise) whatever it names. Fewer variants make shorter runs, or longer counts of each.
 */
export function variantMeasured(name: string, always: readonly string[]): boolean {
  const asked = process.env.BENCH_VARIANTS;
  return always.includes(name) || asked === undefined || asked.split(",").includes(name);
}
