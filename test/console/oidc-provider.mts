/**
 * A real OpenID provider for the console's sign-in tests: `oidc-provider` (a certified OpenID
 * Connect implementation) with its development login and consent pages, on 127.0.0.1 and an
 * ephemeral port. It is an ES module, so it runs as its own process (jest loads CommonJS):
 *
 *   node test/console/oidc-provider.mts
 *   → prints `listening http://127.0.0.1:PORT` (the issuer)
 *   ← reads one JSON line: { clients: [...], accounts: { "<login>": { email, groups } } }
 *   → prints `ready`
 *
 * The clients come after the port because the gateway's redirect URL (registered with the client)
 * is known only once the gateway runs, and the gateway needs the issuer first.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import Provider from "oidc-provider";

interface Setup {
  clients: Record<string, unknown>[];
  accounts: Record<string, { email: string; groups: string[] }>;
}

const server = createServer();
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as { port: number };
const issuer = `http://127.0.0.1:${port}`;
process.stdout.write(`listening ${issuer}\n`);

const lines = createInterface({ input: process.stdin });
const setup = JSON.parse(await new Promise<string>((resolve) => lines.once("line", resolve))) as Setup;

const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
const provider = new Provider(issuer, {
  clients: setup.clients,
  jwks: { keys: [{ ...signingKey, kid: "test", use: "sig", alg: "RS256" }] },
  cookies: { keys: [randomBytes(32).toString("hex")] },
  claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
  scopes: ["openid", "email", "groups"],
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx: unknown, id: string) {
    const account = setup.accounts[id];
    if (!account) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, email: account.email, email_verified: true, groups: account.groups }) };
  },
});
server.on("request", provider.callback());
process.stdout.write("ready\n");
// Ends with its parent: stdin closes when the test does.
lines.on("close", () => {
  server.closeAllConnections();
  server.close();
  process.exit(0);
});
