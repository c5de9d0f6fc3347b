import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Request fields of this gateway's extensions that a gateway keeping to the seed contract does not know. */
const EXTENSION_FIELDS = ["clientReference", "gracePeriodSeconds"];
/** Record fields of those extensions, which such a gateway never sends. */
const EXTENSION_RECORD_FIELDS = ["clientReference", "previousSecretExpiresAt"];

/**
 * A loopback proxy that makes our gateway look like one that offers only the seed contract's key
 * lifecycle: a body with an extension field is refused as an unknown field (400
 * `validation_failed` naming it), and answers lose the extensions' record fields. Tests point a
 * stack at it to prove what works on any gateway.
 */
export async function startSeedOnlyGateway(targetBaseUrl: string): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const target = new URL(targetBaseUrl);
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const unknown = extensionFieldIn(body);
      if (unknown) {
        const error = { type: "invalid_request_error", code: "validation_failed", message: `${unknown}: unknown field`, param: unknown };
        outgoing.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error }));
        return;
      }
      const headers = { ...incoming.headers, "content-length": String(body.length) };
      const upstream = forward({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => parts.push(chunk));
        answer.on("end", () => {
          const text = withoutExtensionFields(Buffer.concat(parts).toString());
          const { "content-length": _length, ...rest } = answer.headers;
          outgoing.writeHead(answer.statusCode ?? 502, rest).end(text);
        });
      });
      upstream.on("error", () => outgoing.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function extensionFieldIn(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  try {
    const parsed = JSON.parse(body.toString()) as Record<string, unknown>;
    return EXTENSION_FIELDS.find((field) => field in parsed);
  } catch {
    return undefined;
  }
}

function withoutExtensionFields(text: string): string {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const strip = (record: Record<string, unknown>) => {
      for (const field of EXTENSION_RECORD_FIELDS) delete record[field];
    };
    if (Array.isArray(parsed.data)) for (const item of parsed.data as Record<string, unknown>[]) strip(item);
    else strip(parsed);
    return JSON.stringify(parsed);
  } catch {
    return text;
  }
}
