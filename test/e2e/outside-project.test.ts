import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type * as auto from "@pulumi/pulumi/automation/index.js";
import { GatewayClient } from "@gateway-keys/sdk";
import { REPO_ROOT, engineTranscript, findLeaks, runLifecycle, setStackConfig, type StackConfig } from "@gateway-keys/testkit/engine";
import { useKeyTestEnvironment } from "./fixture";
import { buildRelease, discardRelease, newOutsideFolder, nodeIn, npmInstall, pulumiIn, serveInstalledGateway, writeKeyProgram, type Release } from "./support/outside-project";

/**
 * The release as a user gets it: `npm run release`'s tarballs installed into a fresh folder outside
 * the repository with nothing else from it, a Pulumi TypeScript program there, and the full cycle
 * through the real CLI, with the dynamic `ApiKey` and with the native plugin installed from its
 * archive. It runs with the lowest `@pulumi/pulumi` the provider's peer range allows and the newest
 * 3.x on npm, so the declared range is the proven one.
 */

/** The newest `@pulumi/pulumi` 3.x on npm when this was written (`npm view @pulumi/pulumi versions`). */
const PULUMI_NEWEST = "3.270.0";
/** The low end of the provider's declared peer range (`>=LOW <4`). */
const PULUMI_LOWEST = /^>=(\d+\.\d+\.\d+) <4$/.exec(require(join(REPO_ROOT, "provider/package.json")).peerDependencies["@pulumi/pulumi"])?.[1];
/** TypeScript for the program, as the repository pins it. */
const TYPESCRIPT: string = require(join(REPO_ROOT, "package.json")).devDependencies.typescript;
/**
 * Other versions to try, also outside the declared range (how its low end was found):
 * GATEWAY_KEYS_PULUMI_VERSIONS=3.150.0,3.200.0 npx jest test/e2e/outside-project.test.ts
 */
const TRIED = process.env.GATEWAY_KEYS_PULUMI_VERSIONS?.split(",");
const VERSIONS = TRIED ?? [PULUMI_LOWEST!, PULUMI_NEWEST];

let release: Release;
beforeAll(async () => {
  if (!PULUMI_LOWEST) throw new Error("provider/package.json's peer range of @pulumi/pulumi is not of the form >=X.Y.Z <4");
  release = await buildRelease();
}, 300_000);
afterAll(() => discardRelease(release));

describe.each(VERSIONS)("a project outside the repository with @pulumi/pulumi %s", (pulumiVersion) => {
  const env = useKeyTestEnvironment({ ownerId: "outside" });
  let project: string;
  beforeAll(async () => {
    project = await newOutsideFolder(`pulumi-${pulumiVersion}`);
    await npmInstall(project, [release.provider, `@pulumi/pulumi@${pulumiVersion}`, `typescript@${TYPESCRIPT}`], { ignorePeerRange: TRIED !== undefined });
    await writeKeyProgram(project);
  }, 600_000);
  afterAll(() => rm(project, { recursive: true, force: true }));

  /** Checks no secret is in the backend's files, the stack's config file or the engine's output. */
  async function expectNoLeaks(stack: auto.Stack, secrets: Record<string, string>): Promise<void> {
    const all = { ...secrets, provisioningKey: env.gateway.provisioningKey };
    expect(await findLeaks(env.sandbox.backendDir, all)).toEqual([]);
    const stackFile = await readFile(join(project, `Pulumi.${stack.name}.yaml`), "utf8");
    const transcript = engineTranscript();
    expect(Object.entries(all).filter(([, value]) => stackFile.includes(value) || transcript.includes(value)).map(([label]) => label)).toEqual([]);
  }

  /** Up → preview (no changes) → refresh (no changes) → a new limit in place → preview → destroy, checking the key on the gateway. */
  async function keyCycle(stack: auto.Stack): Promise<void> {
    const secrets: Record<string, string> = {};
    let keyId = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        expect(result.outputs.secret!.secret).toBe(true);
        secrets.secret = result.outputs.secret!.value as string;
        keyId = result.outputs.keyId!.value as string;
        expect(result.outputs.version!.value).toBe(1);
        expect(await env.statusWith(secrets.secret)).toBe(200);
        expect(await env.statusWith(secrets.secret, "reverse-1")).toBe(403); // the allow-list reached the gateway
      },
      edit: {
        apply: () => setStackConfig(stack, { plain: { "outside-keys:limitUnits": "25.5" } }),
        async verify(result) {
          expect(result.summary.resourceChanges).toMatchObject({ update: 1 });
          expect(result.outputs.keyId!.value).toBe(keyId);
          expect(result.outputs.version!.value).toBe(2);
          const live = await new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey }).apiKeys.get(keyId);
          expect(live).toMatchObject({ version: 2, spendPolicy: { limitUnits: "25.5" } });
        },
      },
      async afterDestroy() {
        expect(await env.statusWith(secrets.secret!)).toBe(401);
      },
    });
    await expectNoLeaks(stack, secrets);
  }

  it("runs the dynamic ApiKey through up, preview, refresh, an in-place update and destroy", async () => {
    const config: StackConfig = {
      plain: { "gateway:baseUrl": env.gateway.baseUrl },
      secret: { "gateway:provisioningKey": env.gateway.provisioningKey },
    };
    await keyCycle(await env.sandbox.projectStack(project, config, "dynamic"));
  });

  it("runs native.ApiKey the same way after 'pulumi plugin install resource gatewaykeys <version> --file <archive>'", async () => {
    await pulumiIn(project, env.sandbox.env, ["plugin", "install", "resource", "gatewaykeys", release.version, "--file", release.pluginArchive]);
    const config: StackConfig = {
      plain: { "outside-keys:flavour": "native", "gatewaykeys:baseUrl": env.gateway.baseUrl },
      secret: { "gatewaykeys:provisioningKey": env.gateway.provisioningKey },
    };
    await keyCycle(await env.sandbox.projectStack(project, config, "native"));
  });
});

describe("the gateway and SDK tarballs in a project outside the repository", () => {
  it("its gateway command (what 'npx gateway' runs) serves, the console included, and stops cleanly, and the installed SDK makes a key that calls a model", async () => {
    const project = await newOutsideFolder("gateway");
    try {
      await npmInstall(project, [release.gateway, release.sdk]);
      const gateway = await serveInstalledGateway(project);
      try {
        const script = `
          const { GatewayClient } = require("@gateway-keys/sdk");
          (async () => {
            const client = new GatewayClient({ baseUrl: process.env.GATEWAY_URL, provisioningKey: process.env.GATEWAY_PROVISIONING_KEY });
            const key = await client.apiKeys.create({ name: "outside" });
            const answer = await fetch(process.env.GATEWAY_URL + "/v1/responses", {
              method: "POST",
              headers: { authorization: "Bearer " + key.secret, "content-type": "application/json" },
              body: JSON.stringify({ model: "reverse-1", input: "hello" }),
            });
            const body = await answer.json();
            console.log(JSON.stringify({ ownerId: key.ownerId, status: answer.status, text: body.output?.[0]?.content?.[0]?.text }));
          })().catch((error) => { console.error(error.message); process.exit(1); });`;
        const printed = await nodeIn(project, script, { GATEWAY_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey });
        expect(JSON.parse(printed)).toEqual({ ownerId: "outside", status: 200, text: "olleh" });
        // The console's built files ship inside the gateway's tarball.
        const page = await fetch(`${gateway.baseUrl}/console`);
        expect(page.status).toBe(200);
        const appScript = /src="(\/console\/assets\/app\.js)"/.exec(await page.text())![1]!;
        expect((await fetch(`${gateway.baseUrl}${appScript}`)).status).toBe(200);
      } finally {
        expect(await gateway.stop()).toBe(0);
      }
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
