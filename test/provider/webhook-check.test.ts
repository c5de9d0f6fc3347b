import { hintOf, withChecksum } from "@gateway-keys/contract";
import { createWebhookProvider, UNKNOWN } from "@gateway-keys/provider/runtime";

/** The Webhook provider's `check` and `diff` called directly, the way the plugin calls them: no gateway. */
describe("Webhook check and diff", () => {
  const provider = createWebhookProvider({ env: {} });
  const provisioningKey = withChecksum("provisioning", "A".repeat(32));
  const connection = { baseUrl: "http://127.0.0.1:1", provisioningKey };

  it("fills the contract's defaults, so an unchanged program never shows a change", async () => {
    const result = await provider.check({}, { url: "https://hooks.example.com/a", events: ["key.expiring"], connection });
    expect(result).toEqual({
      failures: [],
      inputs: { url: "https://hooks.example.com/a", events: ["key.expiring"], labelSelector: {}, enabled: true, connection },
    });
  });

  it("names every failing property path and what is allowed", async () => {
    const result = await provider.check({}, {
      url: "ftp://me:pw@hooks.example.com",
      events: ["key.expiring", "key.exploded", "key.expiring"],
      labelSelector: { "Bad Name": "x" },
      rotationOverlap: "9d",
      connection,
    });
    const properties = result.failures.map((failure) => failure.property);
    expect(properties).toEqual(expect.arrayContaining(["url", "events[1]", "rotationOverlap"]));
    expect(properties.some((property) => property.startsWith("labelSelector"))).toBe(true);
    expect(result.failures.find((failure) => failure.property === "url")!.reason).toContain("http:// or https:// URL");
    expect(result.failures.find((failure) => failure.property === "events[1]")!.reason).toContain("key.budget_threshold");
    const empty = await provider.check({}, { url: "https://hooks.example.com/a", events: [], connection });
    expect(empty.failures).toEqual([{ property: "events", reason: "must name at least one event type" }]);
  });

  it("passes values not known until apply through unchecked", async () => {
    const news = { url: UNKNOWN, events: ["key.expiring"], connection };
    expect(await provider.check({}, news)).toEqual({ inputs: news, failures: [] });
  });

  const stored = {
    webhookId: "wh_1", ownerId: "o", url: "https://hooks.example.com/a", events: ["key.expiring"], labelSelector: {}, enabled: true,
    version: 1, secretHint: "whsec_...abcd", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
    signingSecret: "whsec_x", signingSecretKnown: true, baseUrl: connection.baseUrl, provisioningKeyHint: "gwp_...AAAA", connection,
  };
  const desired = (changes: Record<string, unknown>) => ({ url: stored.url, events: stored.events, labelSelector: {}, enabled: true, connection, ...changes });

  it("changes url, events, selector and enabled in place; another gateway replaces", async () => {
    const checked = (await provider.check({}, desired({}))).inputs;
    const same = { ...stored, provisioningKeyHint: hintOf(provisioningKey) };
    expect(await provider.diff("wh_1", same, checked)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    for (const change of [{ url: "https://hooks.example.com/b" }, { events: ["key.expired"] }, { labelSelector: { team: "a" } }, { enabled: false }, { rotationTrigger: 1 }]) {
      expect(await provider.diff("wh_1", same, desired(change))).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    }
    const moved = desired({ connection: { ...connection, baseUrl: "http://127.0.0.1:2" } });
    expect(await provider.diff("wh_1", same, moved)).toMatchObject({ changes: true, replaces: ["connection"] });
  });
});
