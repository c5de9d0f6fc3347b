/**
 * The drawing thread's entry (see `drawingPool` in images.ts): one image per task, returned as
 * bytes the main thread receives by structured clone.
 */
import { drawPattern, type PatternJob } from "./images";

export default function drawOne(job: PatternJob): Uint8Array {
  return new Uint8Array(drawPattern(job));
}
