import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What to do with the answer to the `nth` create (`POST /v1/account/api-keys`) that passes. */
export interface CreateTrap {
  nth: number;
  /**
   * `hold`: the gateway acts and answers, the answer is kept from the client (a crash before the
   * answer arrived). `deliver`: the answer reaches the client (a crash right after it arrived).
   */
  answer: "hold" | "deliver";
}

/**
 * A loopback proxy in front of a gateway that springs a {@link CreateTrap}: `sprung` resolves once
 * the gateway has answered the chosen create (and, for `deliver`, once the answer was written to
 * the client). The crash trials kill a process at that moment. Held answers are never sent: their
 * connections are cut by `releaseHeld`, as a crash would cut them.
 */
export interface CrashProxy {
  baseUrl: string;
  arm(trap: CreateTrap): Promise<void>;
  /** Cuts every held connection. */
  releaseHeld(): void;
  close(): Promise<void>;
}

export async function startCrashProxy(targetBaseUrl: string): Promise<CrashProxy> {
  const target = new URL(targetBaseUrl);
  let trap: (CreateTrap & { seen: number; spring: () => void }) | undefined;
  const held: ServerResponse[] = [];

  const server: Server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const isCreate = incoming.method === "POST" && /^\/v1\/account\/api-keys\/?$/.test((incoming.url ?? "").split("?")[0]!);
    const armed = trap && isCreate && ++trap.seen === trap.nth ? trap : undefined;
    if (armed) trap = undefined;
    const upstream = forward(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          if (armed?.answer === "hold") {
            held.push(outgoing);
            armed.spring();
            return;
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(Buffer.concat(chunks), () => armed?.spring());
        });
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    arm: (wanted) =>
      new Promise<void>((resolve) => {
        trap = { ...wanted, seen: 0, spring: resolve };
      }),
    releaseHeld: () => {
      for (const response of held.splice(0)) response.socket?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held.splice(0)) response.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
