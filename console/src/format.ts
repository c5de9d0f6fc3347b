/** How the pages write values: one place, so every page says a time or an amount the same way. */

export function dateTime(iso: string | null): string {
  if (iso === null) return "—";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** "3 min ago", "in 2 h", for instants near now. */
export function relative(iso: string | null, now = Date.now()): string {
  if (iso === null) return "never";
  const ms = Date.parse(iso) - now;
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const text = minutes < 1 ? "moments" : minutes < 120 ? `${minutes} min` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} d`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** A span of seconds as a person says it: "45 s", "15 min", "2 h", "7 d" (rounded to the largest unit that fits). */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

/** Credits as the API writes them ("12.5"), grouped for reading. */
export function units(text: string): string {
  const [whole = "0", fraction] = text.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction ? `${grouped}.${fraction}` : grouped;
}

/** The share of `spent` in `limit` (0 to 1), from their decimal strings. */
export function share(spent: string, limit: string): number {
  const ratio = Number(spent) / Number(limit);
  return Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 0;
}

/**
 * What a client reference says of the resource that manages the key: a Pulumi URN
 * (`urn:pulumi:<stack>::<project>::<type>::<name>`) read into its parts, anything else as written.
 */
export function managedBy(reference: string | null): { tool: string; where: string; name: string } | null {
  if (reference === null) return null;
  const urn = /^urn:pulumi:([^:]+)::([^:]+)::(.+)::([^:]+)$/.exec(reference);
  if (!urn) return { tool: "client reference", where: "", name: reference };
  return { tool: "Pulumi", where: `${urn[2]}/${urn[1]}`, name: urn[4]! };
}
