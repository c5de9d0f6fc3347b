import type { ApiKey } from "@gateway-keys/contract";
import { share, units } from "../format";

/**
 * The first window of a key's spend policy (the one `spendWindow` shows), in either of the
 * policy's forms: a gateway before several windows sends only the single form.
 */
export function firstLimitOf(apiKey: ApiKey): { limitUnits: string; resetPeriod: string } | undefined {
  const policy = apiKey.spendPolicy;
  if (!policy) return undefined;
  return "windows" in policy ? policy.windows[0] : policy;
}

/** A key's spend in its current window against its limit: a meter, and the figures as text. */
export function SpendBar({ apiKey }: { apiKey: ApiKey }) {
  const spent = apiKey.spendWindow?.spentUnits ?? apiKey.spentUnits;
  const limit = firstLimitOf(apiKey)?.limitUnits;
  if (limit === undefined) return <span class="muted">{units(spent)} spent, no limit</span>;
  const ratio = share(spent, limit);
  const level = ratio >= 1 ? "full" : ratio >= 0.8 ? "high" : "ok";
  return (
    <span class="spend">
      <meter class={`bar ${level}`} min={0} max={1} low={0.8} high={0.99} optimum={0} value={ratio} aria-label={`spent ${units(spent)} of ${units(limit)}`} />
      <span>
        {units(spent)} / {units(limit)}
      </span>
    </span>
  );
}
