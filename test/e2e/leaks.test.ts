import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findLeaks } from "@gateway-keys/testkit/engine";

/** The leak scan must be able to fail, or every "no leak" assertion built on it means nothing. */
describe("the backend leak scan", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "leak-scan-"));
    await mkdir(join(dir, ".pulumi/history"), { recursive: true });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("reports a plaintext secret in a nested state file", async () => {
    await writeFile(join(dir, ".pulumi/history/stack.json"), '{"token":"s3cr3t-value"}');
    expect(await findLeaks(dir, { token: "s3cr3t-value" })).toEqual([
      { file: join(dir, ".pulumi/history/stack.json"), label: "token" },
    ]);
  });

  it("reports a base64-encoded secret", async () => {
    await writeFile(join(dir, "state.json"), Buffer.from("s3cr3t-value").toString("base64"));
    expect(await findLeaks(dir, { token: "s3cr3t-value" })).toHaveLength(1);
  });

  it.each([0, 1, 2])("reports a secret base64-encoded inside a longer value, %i bytes in", async (offset) => {
    const embedded = Buffer.concat([Buffer.from("xyz".slice(0, offset)), Buffer.from("s3cr3t-value-long-enough"), Buffer.from("tail")]);
    await writeFile(join(dir, "state.json"), `{"blob":"${embedded.toString("base64")}"}`);
    expect(await findLeaks(dir, { token: "s3cr3t-value-long-enough" })).toHaveLength(1);
  });

  it("reports nothing when only ciphertext is present", async () => {
    await writeFile(join(dir, "state.json"), '{"ciphertext":"v1:abc:def"}');
    expect(await findLeaks(dir, { token: "s3cr3t-value" })).toEqual([]);
  });
});
