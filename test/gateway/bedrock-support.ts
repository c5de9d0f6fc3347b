/**
 * What the Bedrock suites share: a scripted Bedrock runtime (testkit/scripted-bedrock.ts) that
 * verifies every request's SigV4 signature, one gateway in front of it with a provider of each
 * Bedrock API, and the official clients pointed at the gateway with a fresh key each test.
 *
 * Credentials: the AWS environment variables (a key with a session token) for `converse` and
 * `invoke`; a profile of a shared credentials file for `profiled` (the right key) and `wrong` (a
 * secret the provider does not know).
 *
 * Models (1 credit per input token, 2 per output token, `maxOutputTokens` 100):
 *   nova        → converse (api converse),        model `amazon.nova-pro-v1:0`
 *   claude-br   → invoke   (api invoke-anthropic), model `anthropic.claude-sonnet-4-5-20250929-v1:0`
 *   profiled    → profiled (api converse, profile `team`)
 *   wrong-key   → wrong    (api converse, profile `stale`: the wrong secret)
 *   titan       → invoke   (embeddings, 1 credit per token), model `amazon.titan-embed-text-v2:0`
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedBedrock, type ScriptedBedrock } from "@gateway-keys/testkit/scripted-bedrock";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { PRICING } from "./forwarding-support";

export { clientsOf, expectNoGatewayKey } from "./forwarding-support";

export const REGION = "eu-west-3";
export const ENV_KEYS = { accessKeyId: "AKIAENVKEY0000000001", secretAccessKey: "env-secret-0123456789abcdefghijklmnopqrstuv", sessionToken: "env-session-token-0123456789abcdef" };
export const PROFILE_KEYS = { accessKeyId: "AKIAPROFILEKEY000002", secretAccessKey: "profile-secret-0123456789abcdefghijklmnop" };
const STALE_SECRET = "stale-secret-0123456789abcdefghijklmnopqrs";
export const NOVA = "amazon.nova-pro-v1:0";
export const CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0";
export const TITAN = "amazon.titan-embed-text-v2:0";
/** Every secret the gateway holds: none may reach a client. */
export const SECRETS = [ENV_KEYS.secretAccessKey, ENV_KEYS.sessionToken, PROFILE_KEYS.secretAccessKey, STALE_SECRET];

const AWS_VARIABLES = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"];

export interface BedrockForwarding {
  bedrock: ScriptedBedrock;
  gateway: TestGateway;
}

export function useBedrock(): () => BedrockForwarding {
  let state: BedrockForwarding | undefined;
  const saved: Record<string, string | undefined> = {};
  const dir = mkdtempSync(join(tmpdir(), "gateway-bedrock-"));
  beforeAll(async () => {
    for (const name of AWS_VARIABLES) saved[name] = process.env[name];
    const credentialsFile = join(dir, "credentials");
    writeFileSync(
      credentialsFile,
      [
        "[team]",
        `aws_access_key_id = ${PROFILE_KEYS.accessKeyId}`,
        `aws_secret_access_key = ${PROFILE_KEYS.secretAccessKey}`,
        "[stale]",
        `aws_access_key_id = ${PROFILE_KEYS.accessKeyId}`,
        `aws_secret_access_key = ${STALE_SECRET}`,
        "",
      ].join("\n"),
    );
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: ENV_KEYS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ENV_KEYS.secretAccessKey,
      AWS_SESSION_TOKEN: ENV_KEYS.sessionToken,
      AWS_SHARED_CREDENTIALS_FILE: credentialsFile,
      AWS_CONFIG_FILE: join(dir, "config"),
    });
    delete process.env.AWS_PROFILE;
    const bedrock = await startScriptedBedrock({ region: REGION, credentials: [ENV_KEYS, PROFILE_KEYS] });
    const common = { kind: "bedrock", region: REGION, endpoint: bedrock.origin, timeoutMs: 2000 };
    const config = GatewayConfig.parse({
      providers: {
        converse: { ...common, api: "converse" },
        invoke: { ...common, api: "invoke-anthropic" },
        profiled: { ...common, profile: "team" },
        wrong: { ...common, profile: "stale" },
      },
      models: [
        { id: "nova", family: "chat", routes: [{ provider: "converse", model: NOVA }], pricing: PRICING, maxOutputTokens: 100 },
        { id: "claude-br", family: "chat", routes: [{ provider: "invoke", model: CLAUDE }], pricing: PRICING, maxOutputTokens: 100 },
        { id: "profiled", family: "chat", routes: [{ provider: "profiled", model: NOVA }], pricing: PRICING, maxOutputTokens: 100 },
        { id: "wrong-key", family: "chat", routes: [{ provider: "wrong", model: NOVA }], pricing: PRICING, maxOutputTokens: 100 },
        { id: "titan", family: "embeddings", routes: [{ provider: "invoke", model: TITAN }], pricing: { inputUnitsPerMillionTokens: "1000000" } },
      ],
    });
    state = { bedrock, gateway: await startTestGateway({ storage: "memory", config }) };
  });
  beforeEach(() => {
    state?.bedrock.received.splice(0);
    state?.bedrock.refusals.splice(0);
    state?.bedrock.skewClock(0);
  });
  afterAll(async () => {
    await state?.gateway.stop();
    await state?.bedrock.close();
    for (const name of AWS_VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!state) throw new Error("useBedrock: the gateway is not started yet (call it at the top of the file)");
    return state;
  };
}

/** The path Bedrock is called at for a model and operation: the model id one encoded segment. */
export const modelPath = (model: string, operation: string) => `/model/${encodeURIComponent(model)}/${operation}`;

/** Asserts that nothing the client got quotes a secret of the gateway's. */
export function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}
