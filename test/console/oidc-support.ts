/**
 * What the console's OpenID Connect tests need besides the gateway: a real OpenID provider in its
 * own process (test/console/oidc-provider.mts), one posing as another, and an offline provisioning key.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Page } from "playwright-core";
import { GATEWAY_CLI } from "@gateway-keys/testkit/gateway-process";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

/** An OpenID provider process (test/console/oidc-provider.mts). */
export interface TestProvider {
  issuer: string;
  /** Registers the clients and accounts; resolves once it serves. */
  configure(setup: object): Promise<void>;
  stop(): void;
}

export async function startProvider(): Promise<TestProvider> {
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, "test/console/oidc-provider.mts")], { stdio: ["pipe", "pipe", "inherit"], cwd: REPO_ROOT });
  const lines: Interface = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the OpenID provider exited (${code})`)));
  });
  const issuer = /^listening (http:\/\/\S+)$/.exec(await next())?.[1];
  if (!issuer) throw new Error("the OpenID provider did not print its issuer");
  return {
    issuer,
    async configure(setup) {
      child.stdin!.write(`${JSON.stringify(setup)}\n`);
      expect(await next()).toBe("ready");
    },
    stop: () => child.stdin!.end(),
  };
}

/** Logs in at the provider's own pages (test/console/oidc-provider.mts) as `login`, and consents. */
export async function loginAtProvider(page: Page, login: string): Promise<void> {
  await page.locator("input[name=login]").fill(login);
  await page.locator("input[name=password]").fill("any password");
  await page.locator("button[type=submit]").click();
  await page.getByRole("button", { name: "Continue" }).click();
}

/** A provisioning key made offline, as an operator makes one (holding the database is the root of trust). */
export function createProvisioningKey(dbPath: string, ownerId: string): string {
  const run = spawnSync(process.execPath, [GATEWAY_CLI, "provisioning-key", "create", "--db", dbPath, "--owner", ownerId], { encoding: "utf8" });
  const key = /gwp_[0-9A-Za-z]+/.exec(run.stdout)?.[0];
  if (!key) throw new Error(`provisioning-key create failed: ${run.stderr}`);
  return key;
}

/**
 * A provider that poses as another: it answers for `provider` through its own address, with the
 * discovery document's `issuer` made its own, and leaves out the authorization response's `iss`
 * (RFC 9207) on the way back. A gateway configured with this address as its issuer is then handed
 * ID tokens whose `iss` is `provider`'s: an ID token from another issuer, and only the ID token's
 * own check can refuse it.
 */
export async function startPosingProvider(provider: TestProvider): Promise<{ issuer: string; server: Server }> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const relay = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name))) as Record<string, string>;
    const answer = await fetch(provider.issuer + request.url, {
      method: request.method!,
      headers,
      redirect: "manual",
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    let body = Buffer.from(await answer.arrayBuffer());
    if (request.url === "/.well-known/openid-configuration") {
      const metadata = JSON.parse(body.toString()) as Record<string, unknown>;
      const { authorization_response_iss_parameter_supported: _dropped, ...rest } = metadata;
      body = Buffer.from(JSON.stringify({ ...rest, issuer, authorization_endpoint: `${issuer}/auth` }));
    }
    // The provider's pages post to its own address: to this one instead, so the way back passes here too.
    if (answer.headers.get("content-type")?.startsWith("text/html")) body = Buffer.from(body.toString().replaceAll(provider.issuer, issuer));
    const location = answer.headers.get("location");
    const out: Record<string, string | string[]> = { "content-type": answer.headers.get("content-type") ?? "text/plain", "set-cookie": answer.headers.getSetCookie() };
    if (location) {
      const moved = new URL(location.replace(provider.issuer, issuer), issuer);
      moved.searchParams.delete("iss");
      out.location = moved.href;
    }
    response.writeHead(answer.status, out).end(body);
  };
  server.on("request", (request, response) => {
    relay(request, response).catch(() => response.writeHead(502).end());
  });
  return { issuer, server };
}
