package provider

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ResourceWithConfigure   = (*webhookResource)(nil)
	_ resource.ResourceWithImportState = (*webhookResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*webhookResource)(nil)
)

// webhookResource is gatewaykeys_webhook: a webhook endpoint of the account API. Its schema is in
// resource_webhook_schema.go, its fields in resource_webhook_model.go.
type webhookResource struct {
	client *account.Client
}

func newWebhookResource() resource.Resource { return &webhookResource{} }

func (r *webhookResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook"
}

func (r *webhookResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if client, ok := req.ProviderData.(*account.Client); ok {
		r.client = client
	}
}

// ModifyPlan keeps every computed value the gateway will not change: the version is known after
// apply only when a PATCH or a rotation is sent, the signing secret only when the plan rotates it
// (a new rotation_trigger), which Update reads back from the plan (an unknown secret).
func (r *webhookResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return
	}
	var plan, prior webhookModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Version, plan.SecretHint, plan.PreviousSecretExpiresAt = prior.Version, prior.SecretHint, prior.PreviousSecretExpiresAt
	plan.SigningSecret, plan.SigningSecretKnown = prior.SigningSecret, prior.SigningSecretKnown
	if !allKnown(ctx, plan.URL, plan.Events, plan.LabelSelector, plan.Enabled) {
		plan.Version = types.Int64Unknown()
	} else if _, changed := webhookChanges(ctx, plan, prior, &resp.Diagnostics); len(changed) > 0 {
		plan.Version = types.Int64Unknown()
	}
	if !plan.RotationTrigger.Equal(prior.RotationTrigger) {
		plan.Version, plan.SecretHint, plan.PreviousSecretExpiresAt = types.Int64Unknown(), types.StringUnknown(), types.StringUnknown()
		plan.SigningSecret, plan.SigningSecretKnown = types.StringUnknown(), types.BoolUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// Create makes the endpoint. Its Idempotency-Key is drawn once per apply and kept across the
// client's retries, so a retried call never makes a second endpoint. Nothing names an endpoint
// across applies (it has no client reference, and Terraform tells a provider nothing of the
// resource's address), so a key derived from the body would hand two identical endpoints, or a
// re-created one within a day, the first one's answer. An apply that dies after the gateway made
// the endpoint leaves one the state lacks; receivers deduplicate its deliveries by webhook-id.
func (r *webhookResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan webhookModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	fields, diags := declaredWebhook(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := webhookCreateRequest(fields)
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		resp.Diagnostics.AddError("No randomness", err.Error())
		return
	}
	created, err := r.client.CreateWebhook(ctx, body, account.IdempotencyKey("webhook-create", body, hex.EncodeToString(nonce)))
	if err != nil {
		// Named by its URL's host, never the whole URL: some receivers put a token in the path or query.
		summary, detail := describeResourceFailure("webhook", "for "+hostOf(fields.URL), "create", err, 0)
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	plan.SigningSecret, plan.SigningSecretKnown = types.StringValue(created.Secret), types.BoolValue(true)
	next, diags := webhookStateOf(ctx, &created.Webhook, plan)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// Read refreshes the state from the gateway, so a change made outside Terraform shows in the next
// plan; a deleted endpoint leaves the state (one the configured credentials cannot see because they
// are another owner's does not). The signing secret stays the state's only while the
// endpoint's secret hint is the one it had.
func (r *webhookResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var prior webhookModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueString()
	record, err := r.client.GetWebhook(ctx, id)
	if account.Is(err, "webhook_not_found") {
		if requireOwner(ctx, r.client, "webhook", id, prior.OwnerID.ValueString(), &resp.Diagnostics) {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	if err != nil {
		summary, detail := describeResourceFailure("webhook", id, "read", err, prior.Version.ValueInt64())
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	next, diags := webhookStateOf(ctx, record, prior)
	resp.Diagnostics.Append(diags...)
	stillCurrent := prior.SigningSecretKnown.ValueBool() && prior.SecretHint.ValueString() == record.SecretHint
	next.SigningSecretKnown = types.BoolValue(stillCurrent)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// Update applies url, events, label_selector and enabled with one PATCH at the state's version,
// then one rotate-secret when the plan has one. Each call carries an Idempotency-Key derived from
// the endpoint, the version and the body.
func (r *webhookResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior webhookModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueString()
	declared, changed := webhookChanges(ctx, plan, prior, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	version := prior.Version.ValueInt64()
	var record *gatewayapi.Webhook
	if len(changed) > 0 {
		body := webhookChangeRequest(version, declared, changed)
		updated, err := r.client.UpdateWebhook(ctx, id, body, account.IdempotencyKey("webhook-change", id, body))
		if err != nil {
			summary, detail := describeResourceFailure("webhook", id, "change", err, version)
			resp.Diagnostics.AddError(summary, detail)
			return
		}
		record, version = updated, int64(updated.Version)
	}
	secret, known := prior.SigningSecret, prior.SigningSecretKnown
	if plan.SigningSecret.IsUnknown() {
		body := gatewayapi.RotateWebhookSecretRequest{ExpectedVersion: int(version)}
		if overlap, ok := parseDuration(plan.RotationOverlap.ValueString()); ok {
			body.OverlapSeconds = ptr(int(overlap.Seconds()))
		}
		rotated, err := r.client.RotateWebhookSecret(ctx, id, body, account.IdempotencyKey("webhook-rotate", id, body))
		if err != nil {
			summary, detail := describeResourceFailure("webhook", id, "rotate the signing secret of", err, version)
			resp.Diagnostics.AddError(summary, detail)
			return
		}
		record = &rotated.Webhook
		secret, known = types.StringValue(rotated.Secret), types.BoolValue(true)
	}
	plan.SigningSecret, plan.SigningSecretKnown = secret, known
	if record == nil {
		// Only what the state carries changed (rotation_overlap): no request.
		next := plan
		next.Version, next.SecretHint, next.PreviousSecretExpiresAt = prior.Version, prior.SecretHint, prior.PreviousSecretExpiresAt
		resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
		return
	}
	next, diags := webhookStateOf(ctx, record, plan)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// webhookChanges is what a plan declares and which of those fields differ from the state's.
func webhookChanges(ctx context.Context, plan, prior webhookModel, diags *diag.Diagnostics) (webhookFields, []string) {
	declared, d := declaredWebhook(ctx, plan)
	diags.Append(d...)
	current, d := declaredWebhook(ctx, prior)
	diags.Append(d...)
	return declared, changedWebhookFields(declared, current)
}

// Delete removes the endpoint; one already gone counts as done, unless the configured credentials
// are another owner's.
func (r *webhookResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var prior webhookModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueString()
	err := r.client.DeleteWebhook(ctx, id, account.IdempotencyKey("webhook-delete", id))
	switch {
	case err == nil:
	case account.Is(err, "webhook_not_found"):
		requireOwner(ctx, r.client, "webhook", id, prior.OwnerID.ValueString(), &resp.Diagnostics)
	default:
		summary, detail := describeResourceFailure("webhook", id, "delete", err, prior.Version.ValueInt64())
		resp.Diagnostics.AddError(summary, detail)
	}
}

// ImportState adopts an existing endpoint by its id: the next refresh reads everything else. The
// gateway never shows a signing secret again, so signing_secret stays null (signing_secret_known
// false) until a rotation_trigger rotates it.
func (r *webhookResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("signing_secret_known"), false)...)
}

// hostOf is a URL's host, or "" for text that is not a URL.
func hostOf(text string) string {
	parsed, err := url.Parse(text)
	if err != nil {
		return ""
	}
	return parsed.Host
}
