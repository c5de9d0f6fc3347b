import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Series {
  label: string;
  values: number[];
  /** A color that reads on the page's white background (contrast ≥ 3:1 for graphics). */
  stroke: string;
}

/**
 * A time series chart (uPlot: a small, fast canvas chart library), with a text summary for
 * screen readers: the figures stay readable without the picture.
 */
export function Chart({ title, times, series, summary }: { title: string; times: number[]; series: Series[]; summary: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const plot = new uPlot(
      {
        width: Math.min(900, host.current.clientWidth || 900),
        height: 220,
        series: [{}, ...series.map((line) => ({ label: line.label, stroke: line.stroke, width: 2 }))],
        axes: [{ stroke: "#1f2933" }, { stroke: "#1f2933" }],
        cursor: { drag: { x: false, y: false } },
      },
      [times.map((time) => time / 1000), ...series.map((line) => line.values)],
      host.current,
    );
    return () => plot.destroy();
  }, [times, series]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={summary} />
    </figure>
  );
}
