/**
 * Extension `secret_use` across three real gateway processes (`gateway serve --database …`) on one
 * PostgreSQL database: each process sees only the requests it serves, and the figures, the warning
 * and the retirement still agree — a process that never saw the old secret used keeps it working
 * while another process sees it in use, and refuses it once it is retired. The official `openai`
 * client plays the two services; a real receiver verifies the signed events.
 */
import { appendFileSync } from "node:fs";
import { randomBytes, randomUUID } from "node:crypto";
import OpenAI from "openai";
import { Webhook as StandardWebhook } from "standardwebhooks";
import type { ApiKey, ApiKeyWithSecret } from "@gateway-keys/contract";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { startPostgres, type PostgresServer } from "@gateway-keys/testkit/postgres";
import { call } from "./helpers";
import { describeWith } from "../support/needs";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

const describeWithPostgres = describeWith("postgres");

describeWithPostgres("secret_use across three gateway processes on one PostgreSQL database", () => {
  let server: PostgresServer;
  let databaseUrl: string;
  let receiver: WebhookReceiver;
  let webhookSecret: string;
  let gateways: GatewayProcess[] = [];
  let provisioningKey: string;
  const encryptionKey = randomBytes(32).toString("base64");

  const startProcess = (bootstrap: boolean, flushSeconds: string) =>
    startGatewayProcess({
      databaseUrl,
      ...(bootstrap ? { bootstrap: { ownerId: "use-owner" } } : {}),
      args: ["--secret-use-flush", flushSeconds, "--webhook-allow-private-targets"],
      env: { GATEWAY_ENCRYPTION_KEY: encryptionKey },
    });
  const account = <Body = any>(gateway: GatewayProcess, method: string, path: string, body?: unknown) =>
    call<Body>(gateway.url, method, `/v1/account${path}`, {
      bearer: provisioningKey,
      ...(body !== undefined ? { body } : {}),
      ...(method === "GET" ? {} : { idempotencyKey: randomUUID() }),
    });
  const record = async (gateway: GatewayProcess, keyId: string) => (await account<ApiKey>(gateway, "GET", `/api-keys/${keyId}`)).body;
  const service = (gateway: GatewayProcess, name: string, secret: string) =>
    new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: { "user-agent": `${name}/1.0` } });
  const chat = (client: OpenAI) => client.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello" }] });
  const eventsOf = (keyId: string, type: string) =>
    receiver
      .accepted()
      .map((delivery) => ({
        ...(new StandardWebhook(webhookSecret).verify(delivery.body, {
          "webhook-id": String(delivery.headers["webhook-id"]),
          "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
          "webhook-signature": String(delivery.headers["webhook-signature"]),
        }) as { type: string; data: any }),
        receivedAt: delivery.receivedAt,
      }))
      .filter((event) => event.type === type && event.data.keyId === keyId);
  async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    server = await startPostgres();
    databaseUrl = await server.createDatabase();
    receiver = await startWebhookReceiver();
    gateways = [await startProcess(true, "0.3")];
    gateways.push(...(await Promise.all([startProcess(false, "0.3"), startProcess(false, "0.3")])));
    provisioningKey = gateways[0]!.provisioningKey!;
    const webhook = await account<{ secret: string }>(gateways[0]!, "POST", "/webhooks", {
      url: receiver.url,
      events: ["key.previous_secret_in_use", "key.previous_secret_retired", "audit.previous_secret_in_use", "audit.previous_secret_retired"],
    });
    expect(webhook.status).toBe(201);
    webhookSecret = webhook.body.secret;
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await receiver?.close();
    await server?.stop();
  });

  test("search-service stays on the old secret through process B only: every process's record names it, the warning comes once, and once it moves every process refuses the old secret", async () => {
    const [a, b, c] = gateways as [GatewayProcess, GatewayProcess, GatewayProcess];
    const started = Date.now();
    const timeline: string[] = [];
    const mark = (step: string, at = Date.now()) => timeline.push(`+${((at - started) / 1000).toFixed(2)} s  ${step}`);
    const created = await account<ApiKeyWithSecret>(a, "POST", "/api-keys", { name: "shared across processes" });
    expect(created.status).toBe(201);
    const key = created.body;
    await chat(service(a, "billing-service", key.secret));
    await chat(service(b, "search-service", key.secret));
    mark("key created on A; billing-service called A, search-service called B, both with the first secret");

    const rotated = await account<ApiKeyWithSecret>(c, "POST", `/api-keys/${key.keyId}/rotate`, {
      expectedVersion: key.version,
      gracePeriodSeconds: 16,
      retireWhenIdleSeconds: 5,
      inUseWarningSeconds: 12,
    });
    expect(rotated.status).toBe(200);
    const rotatedAt = Date.parse(rotated.body.rotatedAt!);
    const expiresAt = Date.parse(rotated.body.previousSecret!.expiresAt);
    mark(`rotated on C: grace 16 s, retireWhenIdle 5 s, warning 12 s before the end (version ${rotated.body.version})`);
    await chat(service(a, "billing-service", rotated.body.secret));
    mark("billing-service moved to the new secret (on A)");

    // search keeps the old secret, on B only, past retireWhenIdle since the rotation.
    const searchOnOld = service(b, "search-service", key.secret);
    let searchCalls = 0;
    while (Date.now() < rotatedAt + 7_000) {
      await chat(searchOnOld);
      searchCalls++;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    mark(`search-service made ${searchCalls} calls on B with the old secret over 7 s: all accepted`);
    // A and C never saw it used, yet still accept it: the flushed figures say it is in use.
    await chat(service(c, "search-service", key.secret));
    await chat(service(a, "search-service", key.secret));
    searchCalls += 2;
    mark("the old secret still accepted on A and C");

    const [warning] = await until(() => eventsOf(key.keyId, "key.previous_secret_in_use"), (events) => events.length > 0, "key.previous_secret_in_use");
    mark(`key.previous_secret_in_use received, naming ${warning!.data.clients.map((client: { userAgent: string }) => client.userAgent).join(", ")}`, warning!.receivedAt);
    expect(warning!.receivedAt).toBeLessThan(expiresAt);
    expect(warning!.data.clients.map((client: { userAgent: string }) => client.userAgent)).toEqual(["search-service/1.0"]);

    // Every process reads the same figures (what all three flushed).
    const seen = await until(() => record(c, key.keyId), (read) => read.previousSecret!.requestsSinceRotation === searchCalls, "the figures of all three processes");
    mark(`record read on C: previousSecret used ${searchCalls} times since the rotation, by search-service only`);
    for (const gateway of gateways) expect((await record(gateway, key.keyId)).previousSecret).toEqual(seen.previousSecret);
    expect(seen.previousSecret!.clients.filter((client) => client.requests > 0).map((client) => [client.userAgent, client.requests])).toEqual([
      ["search-service/1.0", searchCalls],
    ]);
    expect(seen.currentSecret!.clients.map((client) => client.userAgent)).toEqual(["billing-service/1.0"]);

    await chat(service(b, "search-service", rotated.body.secret));
    mark("search-service moved to the new secret (on B)");
    const retired = await until(() => record(a, key.keyId), (read) => read.previousSecret!.retiredAt !== null, "the previous secret's retirement");
    const lastOldUse = Date.parse(retired.previousSecret!.lastUsedAt!);
    const retiredAt = Date.parse(retired.previousSecret!.retiredAt!);
    mark(`previous secret retired (${retired.previousSecret!.retiredReason}), ${((retiredAt - lastOldUse) / 1000).toFixed(2)} s after its last use`, retiredAt);
    expect(retired.previousSecret!.retiredReason).toBe("idle");
    expect(retiredAt - lastOldUse).toBeGreaterThanOrEqual(5_000);
    expect(retiredAt).toBeLessThan(expiresAt);
    expect(retired.version).toBe(rotated.body.version);
    // Every process refuses it at once, whichever saw it last.
    for (const gateway of gateways) await expect(chat(service(gateway, "search-service", key.secret))).rejects.toMatchObject({ status: 401 });
    mark("the old secret refused with 401 on A, B and C");
    for (const gateway of gateways) expect((await chat(service(gateway, "search-service", rotated.body.secret))).choices[0]!.message.content).toBe("hello");

    const [retiredEvent] = await until(() => eventsOf(key.keyId, "key.previous_secret_retired"), (events) => events.length > 0, "key.previous_secret_retired");
    mark("key.previous_secret_retired received (idle)", retiredEvent!.receivedAt);
    expect(retiredEvent!.data).toMatchObject({ reason: "idle", previousSecretHint: key.hint });
    // Three processes scan every 0.3 s: still one of each.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(eventsOf(key.keyId, "key.previous_secret_in_use")).toHaveLength(1);
    expect(eventsOf(key.keyId, "key.previous_secret_retired")).toHaveLength(1);
    const audits = receiver.accepted().map((delivery) => JSON.parse(delivery.body)).filter((event) => event.type.startsWith("audit.") && event.data.keyId === key.keyId);
    expect(audits.map((event) => [event.data.action, event.data.actor.kind])).toEqual([
      ["previous_secret_in_use", "system"],
      ["previous_secret_retired", "system"],
    ]);
    for (const gateway of gateways) expect((await record(gateway, key.keyId)).version).toBe(rotated.body.version);
    mark("one event of each kind; version unchanged on every process");
    if (process.env.SECRET_USE_TIMELINE_FILE) appendFileSync(process.env.SECRET_USE_TIMELINE_FILE, `postgres, 3 processes:\n${timeline.join("\n")}\n`);
  });

  test("figures seen but not yet flushed survive a graceful restart: the process flushes on shutdown", async () => {
    const slow = await startProcess(false, "600");
    let restarted: GatewayProcess | undefined;
    try {
      const created = await account<ApiKeyWithSecret>(slow, "POST", "/api-keys", { name: "flushed on shutdown" });
      for (let i = 0; i < 3; i++) await chat(service(slow, "restart-service", created.body.secret));
      // The 10-minute flush has not run: nothing in the database yet.
      expect((await record(gateways[0]!, created.body.keyId)).currentSecret).toMatchObject({ requestsSinceRotation: 0, lastUsedAt: null });
      await slow.stop();
      restarted = await startProcess(false, "600");
      const after = await record(restarted, created.body.keyId);
      expect(after.currentSecret).toMatchObject({ requestsSinceRotation: 3, clients: [{ userAgent: "restart-service/1.0", requests: 3 }] });
    } finally {
      await slow.stop();
      await restarted?.stop();
    }
  });
});
