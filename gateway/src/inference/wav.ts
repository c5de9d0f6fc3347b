/** Reading RIFF/WAVE audio: enough to tell its length, and to find its chunks. */

/** The chunks of a RIFF/WAVE file by id, or undefined when the bytes are not one. */
export function wavChunks(audio: Buffer): Map<string, Buffer> | undefined {
  if (audio.length < 12 || audio.toString("latin1", 0, 4) !== "RIFF" || audio.toString("latin1", 8, 12) !== "WAVE") return undefined;
  const chunks = new Map<string, Buffer>();
  for (let at = 12; at + 8 <= audio.length; ) {
    const id = audio.toString("latin1", at, at + 4);
    const size = audio.readUInt32LE(at + 4);
    chunks.set(id, audio.subarray(at + 8, Math.min(audio.length, at + 8 + size)));
    at += 8 + size + (size % 2);
  }
  return chunks;
}

/** The length of a WAV's audio in seconds, or undefined when the bytes are not a WAV this can read. */
export function wavDurationSeconds(audio: Buffer): number | undefined {
  const chunks = wavChunks(audio);
  const format = chunks?.get("fmt ");
  const data = chunks?.get("data");
  if (!format || format.length < 16 || !data) return undefined;
  const byteRate = format.readUInt32LE(8);
  return byteRate === 0 ? undefined : data.length / byteRate;
}
