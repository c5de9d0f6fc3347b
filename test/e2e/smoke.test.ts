import type * as auto from "@pulumi/pulumi/automation";
import { greetingProgram } from "./fixtures/greeting";
import { EngineSandbox, findLeaks, stateMentions, preview, runLifecycle, setStackConfig, up } from "@gateway-keys/testkit/engine";

/** The engine, the dynamic-provider plugin and the harness, proven with a resource of our own. */
describe("the Pulumi engine runs a dynamic resource with a secret output", () => {
  let sandbox: EngineSandbox;
  beforeEach(async () => {
    sandbox = await EngineSandbox.create();
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  async function expectCycleWithEncryptedSecret(stack: auto.Stack) {
    let token = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        expect(result.summary.resourceChanges).toMatchObject({ create: 2 }) // the stack and the greeting;
        expect(result.outputs.message).toEqual({ value: "hello", secret: false });
        expect(result.outputs.token?.secret).toBe(true);
        token = result.outputs.token!.value as string;
        expect(token).toMatch(/^smoke-token-[0-9a-f]{24}$/);
        expect(await findLeaks(sandbox.backendDir, { token })).toEqual([]);
        expect(await stateMentions(sandbox.backendDir, '"ciphertext"')).toBe(true);
      },
      edit: {
        apply: () => setStackConfig(stack, { plain: { message: "hello again" } }),
        verify(result) {
          expect(result.summary.resourceChanges).toMatchObject({ update: 1 });
          expect(result.outputs.message?.value).toBe("hello again");
          expect(result.outputs.token?.value).toBe(token);
        },
      },
    });
    expect(await findLeaks(sandbox.backendDir, { token })).toEqual([]);
  }

  it("passes up, preview, refresh, edit and destroy as an inline program", async () => {
    const stack = await sandbox.inlineStack("smoke-inline", async () => greetingProgram(), {
      plain: { "smoke-inline:message": "hello" },
    });
    await expectCycleWithEncryptedSecret(stack);
  });

  it("passes the same cycle as a project folder run by the CLI", async () => {
    const stack = await sandbox.projectStack("test/e2e/fixtures/smoke-project", {
      plain: { "smoke-project:message": "hello" },
    });
    await expectCycleWithEncryptedSecret(stack);
  });

  it("shows an edited input changing in preview --diff", async () => {
    const stack = await sandbox.projectStack("test/e2e/fixtures/smoke-project", {
      plain: { "smoke-project:message": "hello" },
    });
    await up(stack);
    await setStackConfig(stack, { plain: { "smoke-project:message": "goodbye" } });
    const planned = await preview(stack);
    expect(planned.result.changeSummary).toMatchObject({ update: 1 });
    expect(planned.output).toMatch(/~\s+message\s*:\s*"hello"\s*=>\s*"goodbye"/);
  });
});
