/**
 * The least any gateway in Node must do: a `node:http` server that forwards each request body to
 * the upstream through an undici Pool and relays the answer — no auth, no parsing, no policies,
 * no storage. The gateway benchmark measures it as a second baseline: on one machine, a proxied
 * request costs two loopback hops and the upstream's work shares the cores, so "bare" is a bound
 * no proxy reaches, and "floor" is the one a real gateway is measured against.
 */
import { createServer, type Server } from "node:http";
import { Pool } from "undici";

export async function startFloorProxy(upstreamUrl: string, connections = 64): Promise<{ url: string; server: Server; pool: Pool }> {
  const upstream = new URL(upstreamUrl);
  const pool = new Pool(upstream.origin, { connections });
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", async () => {
      try {
        const answer = await pool.request({
          method: "POST",
          path: `${upstream.pathname}/chat/completions`,
          headers: { "content-type": "application/json" },
          body: Buffer.concat(parts),
        });
        response.writeHead(answer.statusCode, { "content-type": String(answer.headers["content-type"] ?? "application/json") });
        for await (const part of answer.body) response.write(part);
        response.end();
      } catch {
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1`, server, pool };
}
