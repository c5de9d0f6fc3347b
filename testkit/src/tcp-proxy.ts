/**
 * A TCP proxy on 127.0.0.1 that a test can cut off, to play a network partition between a
 * gateway and its database — the case a stopped server does not cover, where packets are lost
 * instead of refused, and only timeouts tell:
 *
 *   const proxy = await startTcpProxy(5432);   // proxy.port forwards to 127.0.0.1:5432
 *   proxy.partition();                         // bytes stop flowing both ways; new connections hang
 *   proxy.partition("replies");                // requests still arrive, answers are lost: a commit whose reply never comes
 *   proxy.heal();                              // connections held meanwhile are reset; new ones flow
 *
 * Only erasable TypeScript, so benchmarks can run it under Node's type stripping.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  /**
   * Stops forwarding: open connections go silent, and new ones are accepted but never answered.
   * With `"replies"`, bytes to the server still go through and only its answers are lost.
   */
  partition(direction?: "both" | "replies"): void;
  /** Ends the partition: the connections it held are reset (as their peers would by then), new ones are forwarded. */
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let partitioned: false | "both" | "replies" = false;
  /** Each client socket with its upstream, for cutting and resetting. */
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();

  const forward = (pair: { client: Socket; upstream: Socket | undefined }) => {
    const upstream = connect(targetPort, "127.0.0.1");
    pair.upstream = upstream;
    upstream.on("error", () => pair.client.destroy());
    upstream.on("close", () => pair.client.destroy());
    // Data is handed over by hand rather than piped, so a partition can drop it on the floor.
    pair.client.on("data", (chunk: Buffer) => {
      if (partitioned !== "both") upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!partitioned) pair.client.write(chunk);
    });
  };

  const server: Server = createServer((client) => {
    const pair = { client, upstream: undefined as Socket | undefined };
    pairs.add(pair);
    client.on("error", () => undefined);
    client.on("close", () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (!partitioned) forward(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };

  return {
    port,
    partition(direction = "both") {
      partitioned = direction;
    },
    heal() {
      partitioned = false;
      for (const pair of pairs) {
        pair.client.resetAndDestroy();
        pair.upstream?.destroy();
      }
      pairs.clear();
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
