import type * as pulumi from "@pulumi/pulumi";
import type { RotateWebhookSecretRequest, Webhook, WebhookWithSecret } from "@gateway-keys/contract";
import { callOptions, credentialHint, type Connection } from "../connection";
import type { ProviderContext } from "../context";
import { KeyOperationError } from "../errors";
import { derivedIdempotencyKey } from "../idempotency";
import { requireOwnerOf } from "../owner";
import { describeCreateFailure } from "../messages";
import { durationSeconds } from "../time";
import { describeWebhookFailure, isWebhookGone, unknownSigningSecretWarning } from "./messages";
import { signingSecretRotates } from "./plan";
import type { DesiredWebhook, StoredWebhook } from "./shapes";
import {
  carriedWebhookInputs,
  changedWebhookFields,
  webhookChangeRequest,
  webhookCreateRequest,
  webhookInputsOf,
  webhookState,
  type SigningSecretKnowledge,
} from "./state";

/** Links of the replay chain followed (one per destroy-then-create of the same resource within the gateway's idempotency lifetime). */
const MAX_REPLAY_LINKS = 20;

const webhooksOf = (context: ProviderContext, connection: Connection) => context.connections.client(connection).webhooks;

/**
 * Creates the endpoint, or takes over the one the program adopts. A create carries an
 * Idempotency-Key derived from the resource's URN and the body, so the run after a crash gets the
 * answer the dead run never recorded (the signing secret included) instead of making a second
 * endpoint. A replayed endpoint that was deleted since belongs to a destroyed resource: the next
 * key is derived from its id, and a new endpoint is made.
 */
export async function createWebhook(context: ProviderContext, desired: DesiredWebhook): Promise<pulumi.dynamic.CreateResult<StoredWebhook>> {
  const connection = context.connections.require(desired.connection);
  if (desired.adoptWebhookId) return adoptWebhook(context, desired.adoptWebhookId, desired, connection);
  const webhooks = webhooksOf(context, connection);
  const body = webhookCreateRequest(desired);
  let after: string | null = null;
  for (let link = 0; link < MAX_REPLAY_LINKS; link++) {
    // Without a URN (a direct call) nothing names the resource across runs: the SDK's own key per call.
    const derived: { idempotencyKey?: string } = desired.clientReference === undefined ? {} : { idempotencyKey: derivedIdempotencyKey("create", { webhook: desired.clientReference, body, after }) };
    let answer: { data: WebhookWithSecret; response: { replayed: boolean } };
    try {
      answer = await webhooks.create(body, { ...callOptions(connection), ...derived }).withResponse();
    } catch (error) {
      throw describeCreateFailure(endpointName(desired), error, connection, "webhook");
    }
    const { secret, ...record } = answer.data;
    if (!answer.response.replayed) return created(record, secret, connection, desired);
    // The answer of a create an earlier run made and never recorded: good while the endpoint lives.
    let live: Webhook;
    try {
      live = await webhooks.get(record.webhookId, callOptions(connection));
    } catch (error) {
      if (isWebhookGone(error)) {
        after = record.webhookId;
        continue;
      }
      throw describeWebhookFailure(record.webhookId, "read", error, record.version, connection);
    }
    const stillCurrent = live.secretHint === record.secretHint;
    if (!stillCurrent) context.diagnostics.warn(unknownSigningSecretWarning(live.webhookId, "it was rotated outside this stack"), desired.clientReference);
    return { id: live.webhookId, outs: webhookState(live, connection, { signingSecret: secret, signingSecretKnown: stillCurrent }, desired) };
  }
  throw new KeyOperationError(
    `could not create webhook "${endpointName(desired)}": the gateway kept answering with endpoints deleted since; run \`pulumi up\` again.`,
  );
}

/**
 * How messages name an endpoint not made yet: its resource's name, else its URL's host. Never the
 * whole URL: some receivers put a token in the path or query.
 */
function endpointName(desired: DesiredWebhook): string {
  if (desired.clientReference !== undefined) return desired.clientReference.split("::").pop()!;
  return `for ${new URL(desired.url).host}`;
}

function created(record: Webhook, secret: string, connection: Connection, desired: DesiredWebhook): pulumi.dynamic.CreateResult<StoredWebhook> {
  return { id: record.webhookId, outs: webhookState(record, connection, { signingSecret: secret, signingSecretKnown: true }, desired) };
}

/** Takes over an existing endpoint (the dynamic Webhook's `import`): one read, no change; it must already be what the program declares. */
async function adoptWebhook(
  context: ProviderContext,
  webhookId: string,
  desired: DesiredWebhook,
  connection: Connection,
): Promise<pulumi.dynamic.CreateResult<StoredWebhook>> {
  let record: Webhook;
  try {
    record = await webhooksOf(context, connection).get(webhookId, callOptions(connection));
  } catch (error) {
    throw describeWebhookFailure(webhookId, "adopt", error, 0, connection);
  }
  const state = webhookState(record, connection, { signingSecret: undefined, signingSecretKnown: false }, desired);
  const differences = changedWebhookFields(state, desired);
  if (differences.length > 0) {
    throw new KeyOperationError(
      `cannot adopt webhook ${webhookId}: it differs from the program in ${differences.join(", ")}. ` +
        "Make the program match the endpoint, adopt it, then change it in a later update. Nothing was changed.",
    );
  }
  context.diagnostics.warn(unknownSigningSecretWarning(webhookId, "it was adopted"), desired.clientReference);
  return { id: webhookId, outs: state };
}

/** What refresh (and the native plugin's import) learns of an endpoint: nothing when it is gone, else its outputs and the inputs they imply. */
export interface WebhookRead {
  id?: string;
  props?: StoredWebhook;
  inputs?: Record<string, unknown>;
}

/**
 * Reads the live endpoint. The signing secret stays the stack's only while nobody rotated it outside
 * (same secret hint). A deleted endpoint leaves the stack; one another owner's credentials cannot see does not.
 */
export async function readWebhook(context: ProviderContext, id: string, stored: StoredWebhook | undefined): Promise<WebhookRead> {
  const connection = context.connections.existing(stored);
  let record: Webhook;
  try {
    record = await webhooksOf(context, connection).get(id, callOptions(connection));
  } catch (error) {
    if (!isWebhookGone(error)) throw describeWebhookFailure(id, "read", error, stored?.version ?? 0, connection);
    if (stored) await requireOwnerOf(context.owners, { kind: "webhook", id }, stored, connection);
    return {};
  }
  const known = stored?.signingSecretKnown === true && stored.secretHint === record.secretHint;
  const secret: SigningSecretKnowledge = { signingSecret: stored?.signingSecret, signingSecretKnown: known };
  const state = webhookState(record, connection, secret, stored ? carriedWebhookInputs(stored) : {});
  return { id, props: state, inputs: webhookInputsOf(state) };
}

/**
 * Applies URL, events, selector and enabled with one PATCH at the state's version, then one
 * rotate-secret when `rotationTrigger` changed. Each call carries an Idempotency-Key derived from
 * the endpoint, the version and the body: a run after a crash gets the answer the dead run never
 * recorded, a rotation's new secret too.
 */
export async function updateWebhook(
  context: ProviderContext,
  id: string,
  stored: StoredWebhook,
  desired: DesiredWebhook,
): Promise<pulumi.dynamic.UpdateResult<StoredWebhook>> {
  const connection = context.connections.require(desired.connection);
  const webhooks = webhooksOf(context, connection);
  let record: Webhook | undefined;
  let secret: SigningSecretKnowledge = { signingSecret: stored.signingSecret, signingSecretKnown: stored.signingSecretKnown };
  const changed = changedWebhookFields(stored, desired);
  if (changed.length > 0) {
    const body = webhookChangeRequest(stored.version, changed, desired);
    try {
      record = await webhooks.update(id, body, { ...callOptions(connection), idempotencyKey: derivedIdempotencyKey("change", { webhookId: id, body }) });
    } catch (error) {
      throw describeWebhookFailure(id, "change", error, stored.version, connection);
    }
  }
  if (signingSecretRotates(stored, desired)) {
    const body: RotateWebhookSecretRequest = { expectedVersion: record?.version ?? stored.version };
    if (desired.rotationOverlap !== undefined) body.overlapSeconds = durationSeconds(desired.rotationOverlap);
    try {
      const idempotencyKey = derivedIdempotencyKey("rotate", { webhookId: id, body });
      const { secret: issued, ...rotated } = await webhooks.rotateSecret(id, body, { ...callOptions(connection), idempotencyKey });
      record = rotated;
      secret = { signingSecret: issued, signingSecretKnown: true };
    } catch (error) {
      const failure = describeWebhookFailure(id, "rotate the signing secret of", error, body.expectedVersion, connection);
      if (!record) throw failure;
      throw new KeyOperationError(
        `webhook ${id}: the change of ${changed.join(", ")} was applied (now version ${record.version}), but the rotation failed: ` +
          `${failure.message} Once that is resolved, \`pulumi refresh\` then \`pulumi up\` rotates the secret.`,
        { cause: failure },
      );
    }
  }
  if (!record && credentialHint(connection) !== stored.provisioningKeyHint) {
    // Only the credential changed: prove it reaches this endpoint before recording it.
    try {
      record = await webhooks.get(id, callOptions(connection));
    } catch (error) {
      throw describeWebhookFailure(id, "read", error, stored.version, connection);
    }
  }
  if (!record) return { outs: webhookState(recordOf(stored), connection, secret, desired) };
  return { outs: webhookState(record, connection, secret, desired) };
}

/** The gateway's record as a stored endpoint holds it. */
function recordOf(stored: StoredWebhook): Webhook {
  return { object: "webhook", ...stored, previousSecretExpiresAt: stored.previousSecretExpiresAt ?? null } as Webhook;
}

/** Deletes the endpoint; pending deliveries to it are dropped. Already gone counts as done; another owner's credentials do not. */
export async function deleteWebhook(context: ProviderContext, id: string, stored: StoredWebhook): Promise<void> {
  const connection = context.connections.existing(stored);
  try {
    await webhooksOf(context, connection).delete(id, { ...callOptions(connection), idempotencyKey: derivedIdempotencyKey("delete", { webhookId: id }) });
  } catch (error) {
    if (!isWebhookGone(error)) throw describeWebhookFailure(id, "delete", error, stored.version, connection);
    await requireOwnerOf(context.owners, { kind: "webhook", id }, stored, connection);
  }
}
