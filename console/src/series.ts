import type { UsageTimeline } from "@gateway-keys/contract";

/** The start of every bucket of a timeline's span, including those without requests. */
export function bucketStarts(timeline: UsageTimeline): number[] {
  const step = timeline.bucket === "hour" ? 3_600_000 : 86_400_000;
  const starts: number[] = [];
  for (let at = Date.parse(timeline.since); at < Date.parse(timeline.until); at += step) starts.push(at);
  return starts;
}

/** Per bucket: what `pick` takes of each point, summed. */
export function perBucket(timeline: UsageTimeline, pick: (point: UsageTimeline["data"][number]) => number): number[] {
  const starts = bucketStarts(timeline);
  const index = new Map(starts.map((start, i) => [start, i]));
  const sums = starts.map(() => 0);
  for (const point of timeline.data) {
    const i = index.get(Date.parse(point.startedAt));
    if (i !== undefined) sums[i]! += pick(point);
  }
  return sums;
}

/** Requests and cost per model and status over the whole timeline, most requests first. */
export function byModelAndStatus(timeline: UsageTimeline): { model: string; status: number; requests: number; cost: number }[] {
  const rows = new Map<string, { model: string; status: number; requests: number; cost: number }>();
  for (const point of timeline.data) {
    const key = `${point.model}\u0000${point.status}`;
    const row = rows.get(key) ?? { model: point.model, status: point.status, requests: 0, cost: 0 };
    row.requests += point.requests;
    row.cost += Number(point.costUnits);
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => b.requests - a.requests);
}
