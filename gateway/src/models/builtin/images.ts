import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Piscina } from "piscina";
import { crc32, deflateSync } from "node:zlib";
import type { ImageEngine } from "../../inference/engines";
import { countTokens } from "../../inference/tokens";
import { imageTokens } from "../../inference/wires/images/wire";

/** One PNG chunk: length, type, data, CRC-32 of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An 8-bit RGB PNG of `rgb` (width × height × 3 bytes, row by row). */
export function encodePng(width: number, height: number, rgb: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  // Each row starts with its filter type (0: none).
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) rgb.copy(rows, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

/** What one image of a request is drawn from. */
export interface PatternJob {
  prompt: string;
  /** The image's position in the request: it varies the phase. */
  index: number;
  width: number;
  height: number;
}

/**
 * Draws one image: the prompt's hash picks two colours and a stripe frequency, and the image's
 * index varies the phase. The same prompt always gives the same images: a real, valid PNG any
 * client can decode, made with no model weights. CPU-bound (about a second at 1024×1024), so the
 * gateway runs it on a worker thread (image-worker.ts), never on the event loop.
 */
export function drawPattern({ prompt, index, width, height }: PatternJob): Buffer {
  const seed = createHash("sha256").update(`${index}\n${prompt}`).digest();
  const frequency = 2 + (seed[6]! % 14);
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const mix = (Math.sin(((x + y) / width) * Math.PI * frequency + seed[7]!) + 1) / 2;
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) rgb[at + c] = Math.round(seed[c]! * mix + seed[c + 3]! * (1 - mix));
    }
  }
  return encodePng(width, height, rgb);
}

/**
 * The threads images are drawn on, started on the first image request. Up to one per core but one
 * (the event loop keeps a core for every other request); idle threads exit after a few seconds, so
 * a gateway that draws no image runs none and an idle pool never keeps a process alive.
 */
let pool: Piscina | undefined;
function drawingPool(): Piscina {
  pool ??= new Piscina({
    filename: join(__dirname, "image-worker.js"),
    minThreads: 0,
    maxThreads: Math.max(1, availableParallelism() - 1),
    idleTimeout: 5_000,
  });
  return pool;
}

/** The built-in image model: {@link drawPattern} for each image, on the drawing threads. */
export const patternImages: ImageEngine = {
  async generate(prompt, count, width, height) {
    const images = await Promise.all(
      Array.from({ length: count }, async (_, index) => Buffer.from(await drawingPool().run({ prompt, index, width, height } satisfies PatternJob))),
    );
    return { images, usage: { inputTokens: countTokens(prompt), outputTokens: count * imageTokens(width, height) } };
  },
};
