/**
 * A TCP proxy in front of PostgreSQL that terminates backends (`pg_terminate_backend`, the real
 * thing) at the moment that is worst for a client and rare by chance: right after the backend
 * answered. While armed, it reads the server's messages on each connection, learns the backend's
 * pid from BackendKeyData, and at a chosen ReadyForQuery holds that message back, terminates the
 * backend from a connection of its own, waits for the server's FATAL 57P01 and close, then hands
 * the client the answer's end and the termination in one write. The client reads both in one
 * chunk — as a loaded client does whenever a failover, a pooler or an operator ends a backend just
 * after it answered — so whatever the client does between "answered" and "next statement" (hand
 * the connection to another user, return it to a pool) meets the error at once.
 *
 *   const proxy = await startTerminatingProxy({ targetPort: server.port, adminUrl });
 *   proxy.arm();     // from now on, connection n is terminated after its (1 + n % cycle)-th ReadyForQuery (or its next, if past it)
 *   proxy.disarm();  // connections are left alone again
 *
 * Connection n counts from 0 in order of opening; its first ReadyForQuery ends its startup, so
 * with the default cycle of 6 the connections die just as they are ready, and after each of their
 * first five statements, in turn. Without TLS (the proxy reads the server's bytes).
 * Only erasable TypeScript and package imports, so benchmarks can run it under Node's type stripping.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import pg from "pg";

export interface TerminatingProxyOptions {
  /** The server's port on 127.0.0.1. */
  targetPort: number;
  /** A URL of the server, straight to it, whose user may terminate the proxied backends (a superuser). */
  adminUrl: string;
  /** Connection n is terminated after its (1 + n % cycle)-th ReadyForQuery. Default 6. */
  cycle?: number;
}

export interface TerminatingProxy {
  port: number;
  /** Starts terminating backends; a connection already past its turn is terminated after its next ReadyForQuery. */
  arm(): void;
  /** Stops terminating; a termination under way completes. */
  disarm(): void;
  /** Backends terminated so far. */
  readonly terminated: number;
  close(): Promise<void>;
}

/** Message types of the server (PostgreSQL's protocol, "Message Formats"). */
const BACKEND_KEY_DATA = 0x4b; // 'K'
const READY_FOR_QUERY = 0x5a; // 'Z'
/** How long a terminated backend may take to send its FATAL and close before the proxy cuts the connection itself. */
const TERMINATION_TIMEOUT_MS = 5000;

/** Splits a stream of server messages (type byte, then a length that counts itself) into whole messages. */
function messageReader(onMessages: (messages: Buffer[]) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const messages: Buffer[] = [];
    let offset = 0;
    while (pending.length - offset >= 5) {
      const end = offset + 1 + pending.readInt32BE(offset + 1);
      if (end > pending.length) break;
      messages.push(pending.subarray(offset, end));
      offset = end;
    }
    pending = pending.subarray(offset);
    if (messages.length > 0) onMessages(messages);
  };
}

export async function startTerminatingProxy(options: TerminatingProxyOptions): Promise<TerminatingProxy> {
  const cycle = options.cycle ?? 6;
  const admin = new pg.Pool({ connectionString: options.adminUrl, max: 2 });
  admin.on("error", () => undefined);
  const sockets = new Set<Socket>();
  let armed = false;
  let opened = 0;
  let terminated = 0;

  const proxyConnection = (client: Socket) => {
    const serial = opened++;
    const upstream = connect(options.targetPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    let pid: number | undefined;
    let ready = 0;
    /** Set once this connection's backend is being terminated: the server's bytes from the chosen ReadyForQuery on. */
    let held: Buffer[] | undefined;

    const flushHeld = () => {
      if (held) client.end(Buffer.concat(held));
      else client.end();
    };
    const terminate = (backend: number) => {
      const cut = setTimeout(() => {
        flushHeld();
        upstream.destroy();
      }, TERMINATION_TIMEOUT_MS);
      cut.unref();
      upstream.once("close", () => clearTimeout(cut));
      admin.query("SELECT pg_terminate_backend($1) AS done", [backend]).then(
        ({ rows }) => {
          if (rows[0]?.done) terminated++;
        },
        () => upstream.destroy(),
      );
    };

    upstream.on(
      "data",
      messageReader((messages) => {
        const forward: Buffer[] = [];
        for (const message of messages) {
          if (held) {
            held.push(message);
            continue;
          }
          if (message[0] === BACKEND_KEY_DATA) pid = message.readInt32BE(5);
          if (message[0] === READY_FOR_QUERY) {
            ready++;
            if (armed && pid !== undefined && ready >= 1 + (serial % cycle)) {
              held = [message];
              terminate(pid);
              continue;
            }
          }
          forward.push(message);
        }
        if (forward.length > 0) client.write(Buffer.concat(forward));
      }),
    );
    upstream.on("error", () => client.destroy());
    // The server closes a terminated backend's connection after its FATAL: the client gets what was held, then the close.
    upstream.on("close", () => {
      sockets.delete(upstream);
      flushHeld();
    });
    client.on("data", (chunk: Buffer) => upstream.write(chunk));
    client.on("error", () => undefined);
    client.on("close", () => {
      sockets.delete(client);
      upstream.destroy();
    });
  };

  const server: Server = createServer(proxyConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };

  return {
    port,
    arm() {
      armed = true;
    },
    disarm() {
      armed = false;
    },
    get terminated() {
      return terminated;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await admin.end();
    },
  };
}
