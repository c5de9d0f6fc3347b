import { createApiKeyProvider, UNKNOWN, type CheckedInputs } from "@gateway-keys/provider/runtime";
import { withChecksum } from "@gateway-keys/contract";

/** `check` plans the secret from the previous inputs and an injected clock: no gateway, no sleeping. */
describe("ApiKey rotation planning at check", () => {
  const DAY = 86_400_000;
  const start = Date.UTC(2030, 0, 1);
  let now = start;
  const connection = { baseUrl: "http://127.0.0.1:1", provisioningKey: withChecksum("provisioning", "A".repeat(32)) };
  const provider = createApiKeyProvider({ env: {}, clock: () => now });
  const program = (extra: Record<string, unknown> = {}) => ({ name: "ci", connection, rotateAfter: "30d", ...extra });

  /** Checks `news` after `olds` at `at`, as the engine does on each run. */
  async function checkAt(at: number, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<Record<string, unknown>> {
    now = at;
    const result = await provider.check(olds, news);
    expect(result.failures).toEqual([]);
    return result.inputs as Record<string, unknown>;
  }

  it("starts the schedule at the create", async () => {
    const created = await checkAt(start, {}, program());
    expect(created.rotation).toEqual({ issuedAt: "2030-01-01T00:00:00.000Z", reason: "created" });
  });

  it("carries the schedule over unchanged until it is due, then plans one rotation that moves the next due date", async () => {
    const created = await checkAt(start, {}, program());
    const before = await checkAt(start + 30 * DAY - 1, created, program());
    expect(before.rotation).toEqual(created.rotation);
    const due = await checkAt(start + 30 * DAY, before, program());
    expect(due.rotation).toEqual({
      issuedAt: "2030-01-31T00:00:00.000Z",
      reason: "scheduled: the secret issued 2030-01-01T00:00:00.000Z reached rotateAfter 30d",
    });
    // Recorded, the rotation is not due again at the same instant, nor a day later.
    expect((await checkAt(start + 30 * DAY, due, program())).rotation).toEqual(due.rotation);
    expect((await checkAt(start + 31 * DAY, due, program())).rotation).toEqual(due.rotation);
  });

  it("shows the secret as unknown only in a preview that rotates", async () => {
    const created = await checkAt(start, {}, program());
    expect(await checkAt(start + 31 * DAY, created, program({ planning: true }))).toMatchObject({ secret: UNKNOWN });
    expect(await checkAt(start + 31 * DAY, created, program({ planning: false }))).not.toHaveProperty("secret");
    expect(await checkAt(start + 1 * DAY, created, program({ planning: true }))).not.toHaveProperty("secret");
    const triggered = await checkAt(start + 1 * DAY, { ...created, rotationTrigger: 1 }, program({ rotationTrigger: 2, planning: true }));
    expect(triggered).toMatchObject({ secret: UNKNOWN, rotation: { issuedAt: "2030-01-02T00:00:00.000Z", reason: "rotationTrigger changed" } });
  });

  it("never hands the engine the planning flag, nor a rotation the program tried to set", async () => {
    const inputs = await checkAt(start, {}, program({ planning: true, rotation: { issuedAt: "1999-01-01T00:00:00.000Z", reason: "forged" } }));
    expect(inputs).not.toHaveProperty("planning");
    expect(inputs.rotation).toEqual({ issuedAt: "2030-01-01T00:00:00.000Z", reason: "created" });
  });

  it("starts the schedule when rotateAfter is added to an existing key, without rotating", async () => {
    const withoutSchedule = await checkAt(start, {}, { name: "ci", connection });
    const added = await checkAt(start + 100 * DAY, withoutSchedule, program({ planning: true }));
    expect(added.rotation).toEqual({ issuedAt: "2030-04-11T00:00:00.000Z", reason: "rotateAfter 30d declared: the schedule starts now" });
    expect(added).not.toHaveProperty("secret");
  });

  it("measures a shorter rotateAfter from the same issue time", async () => {
    const created = await checkAt(start, {}, program());
    const shortened = await checkAt(start + 10 * DAY, created, program({ rotateAfter: "7d" }));
    expect(shortened.rotation).toMatchObject({ reason: "scheduled: the secret issued 2030-01-01T00:00:00.000Z reached rotateAfter 7d" });
  });

  it.each([
    ["30", 'expected a duration such as "30d", "12h" or "90m"'],
    ["30 d", 'expected a duration such as "30d", "12h" or "90m"'],
    ["59m", "from 1h to 3650d"],
    ["3651d", "from 1h to 3650d"],
  ])("refuses rotateAfter %p naming the property", async (value, reason) => {
    const result = await provider.check({}, program({ rotateAfter: value }));
    expect(result.failures).toEqual([{ property: "rotateAfter", reason: expect.stringContaining(reason) }]);
  });

  it.each([["8d"], ["1w"], ["-1h"]])("refuses rotationGracePeriod %p naming the property", async (value) => {
    const result = await provider.check({}, program({ rotationGracePeriod: value }));
    expect(result.failures).toEqual([{ property: "rotationGracePeriod", reason: expect.stringContaining("at most 7d") }]);
  });

  it("measures rotateAfter against the system time when no clock is given, whatever the environment says", async () => {
    const withoutClock = createApiKeyProvider({ env: { GATEWAY_KEYS_TEST_NOW: "2031-05-05T05:05:05.000Z" } });
    const before = Date.now();
    const result = await withoutClock.check({}, program());
    const issuedAt = Date.parse((result.inputs as CheckedInputs & { rotation: { issuedAt: string } }).rotation.issuedAt);
    expect(issuedAt).toBeGreaterThanOrEqual(before);
    expect(issuedAt).toBeLessThanOrEqual(Date.now());
  });
});
