package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ResourceWithConfigure   = (*apiKeyResource)(nil)
	_ resource.ResourceWithImportState = (*apiKeyResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*apiKeyResource)(nil)
)

// apiKeyResource is gatewaykeys_api_key. Its schema is in resource_api_key_schema.go, Create in
// resource_api_key_create.go, the plan (rotation, what is known after apply) in
// resource_api_key_plan.go; this file reads, changes and revokes.
type apiKeyResource struct {
	client *account.Client
	// now is the provider's clock (NewWithClock): read when a secret is issued and at refresh.
	now func() time.Time
}

func newAPIKeyResource(now func() time.Time) resource.Resource { return &apiKeyResource{now: now} }

func (r *apiKeyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_api_key"
}

func (r *apiKeyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if client, ok := req.ProviderData.(*account.Client); ok {
		r.client = client
	}
}

// Read refreshes the state from the gateway, so a change made outside Terraform shows in the
// next plan. A revoked or missing key leaves the state. A key rotated outside keeps its secret,
// marked secret_known = false, with a warning that says how to get a working one.
func (r *apiKeyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var prior apiKeyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	keyID := prior.ID.ValueString()
	record, err := r.client.Get(ctx, keyID)
	if account.Is(err, "key_not_found") {
		if r.requireOwner(ctx, keyID, prior.OwnerID.ValueString(), &resp.Diagnostics) {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	if err != nil {
		summary, detail := describeFailure(keyID, "read", err, prior.Version.ValueInt64())
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	if record.State == gatewayapi.ApiKeyStateRevoked {
		resp.State.RemoveResource(ctx)
		return
	}
	next, diags := stateOf(ctx, record, prior)
	resp.Diagnostics.Append(diags...)
	// The secret in state stays the key's own only while nobody rotated the key outside Terraform.
	stillCurrent := prior.SecretKnown.ValueBool() && sameOptionalInstant(prior.RotatedAt, next.RotatedAt)
	next.SecretKnown = types.BoolValue(stillCurrent)
	if !prior.Secret.IsNull() && !stillCurrent {
		resp.Diagnostics.AddWarning("Key rotated outside Terraform", rotatedOutsideWarning(keyID))
	}
	resp.Diagnostics.Append(recordDue(ctx, r.now(), next, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// Update applies name, state and policy changes with one PATCH at the state's version, then one
// rotation when the plan has one (resource_api_key_plan.go), with the declared grace period. Each call carries an
// Idempotency-Key derived from the key, the version and the body: an apply after a crash gets the
// answer the lost one never recorded, a rotation's new secret too.
func (r *apiKeyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	keyID := prior.ID.ValueString()
	declared, diags := declaredFields(ctx, plan)
	resp.Diagnostics.Append(diags...)
	current, diags := declaredFields(ctx, prior)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	version := prior.Version.ValueInt64()
	var record *gatewayapi.ApiKey
	changed := changedFields(declared, current)
	if len(changed) > 0 {
		body := changeRequest(version, declared, changed)
		updated, err := r.client.Update(ctx, keyID, body, account.IdempotencyKey("change", keyID, body))
		if err != nil {
			summary, detail := describeFailure(keyID, "change", err, version)
			resp.Diagnostics.AddError(summary, detail)
			return
		}
		record = updated
		version = int64(updated.Version)
	}
	secret, secretKnown := prior.Secret, prior.SecretKnown
	issued := prior.SecretIssuedAt
	if schedulesFromNow(prior, plan) {
		issued = issuedAt(r.now())
	}
	if rotationPlanned(plan) {
		body := gatewayapi.RotateApiKeyRequest{ExpectedVersion: int(version)}
		if grace, ok := parseDuration(plan.RotationGracePeriod.ValueString()); ok {
			body.GracePeriodSeconds = ptr(int(grace.Seconds()))
		}
		rotateSettings(plan, &body)
		rotated, err := r.client.Rotate(ctx, keyID, body, account.IdempotencyKey("rotate", keyID, body))
		if err != nil {
			summary, detail := describeRotateFailure(keyID, err, version)
			if record != nil {
				// The PATCH landed, the rotation did not; the state keeps what it had, so the next
				// apply refreshes the key (the change is there) and makes the rotation.
				detail = fmt.Sprintf("The change of %s was applied, but the rotation failed: %s Once that is resolved, `tofu apply` again makes the rotation.",
					attributeNames(changed), detail)
			}
			resp.Diagnostics.AddError(summary, detail)
			return
		}
		record = &rotated.Key
		secret, secretKnown = types.StringValue(rotated.Secret), types.BoolValue(true)
		issued = issuedAt(r.now())
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, dueKey, nil)...)
	}
	plan.SecretIssuedAt = issued
	if record == nil {
		// Only what the state carries changed (rotation settings, client_reference): no request.
		next := plan
		next.Version, next.Secret, next.SecretKnown = prior.Version, prior.Secret, prior.SecretKnown
		resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
		return
	}
	plan.Secret, plan.SecretKnown = secret, secretKnown
	next, diags := stateOf(ctx, record, plan)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// Delete revokes the key (irreversible). Already revoked or gone counts as done, unless the
// configured credentials are another owner's (then the key may well live on).
func (r *apiKeyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var prior apiKeyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	keyID := prior.ID.ValueString()
	body := gatewayapi.VersionedRequest{ExpectedVersion: int(prior.Version.ValueInt64())}
	err := r.client.Revoke(ctx, keyID, body, account.IdempotencyKey("revoke", keyID, body))
	switch {
	case err == nil, account.Is(err, "key_revoked"):
	case account.Is(err, "key_not_found"):
		r.requireOwner(ctx, keyID, prior.OwnerID.ValueString(), &resp.Diagnostics)
	default:
		summary, detail := describeFailure(keyID, "revoke", err, prior.Version.ValueInt64())
		resp.Diagnostics.AddError(summary, detail)
	}
}

// ImportState adopts an existing key by its id: the next refresh reads everything else. Its
// secret is unknown to the state (secret_known = false) until a rotation_trigger change rotates it.
func (r *apiKeyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("key_id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("secret_known"), false)...)
}

// requireOwner, after a 404, passes (true) when the configured credentials are the key's owner's,
// so the key really is gone; otherwise it adds the error that says whose credentials to use.
func (r *apiKeyResource) requireOwner(ctx context.Context, keyID, keyOwner string, diags *diag.Diagnostics) bool {
	return requireOwner(ctx, r.client, "key", keyID, keyOwner, diags)
}

// requireOwner, after a 404 for a resource ("key", "webhook") of owner `owner`, passes (true) when
// the configured credentials are that owner's, so it really is gone; otherwise it adds the error
// that says whose credentials to use. A 404 alone cannot tell "gone" from "another owner's".
func requireOwner(ctx context.Context, client *account.Client, noun, id, owner string, diags *diag.Diagnostics) bool {
	title := strings.ToUpper(noun[:1]) + noun[1:]
	if owner == "" {
		// An import of an id this owner cannot see: nothing to compare, and nothing was in state.
		diags.AddError(title+" not found", fmt.Sprintf("No %s %s is visible to the configured provisioning key: check the id, and that provisioning_key is the %s owner's.", noun, id, noun))
		return false
	}
	principal, err := client.Whoami(ctx)
	if err != nil {
		summary, detail := describeResourceFailure(noun, id, "check the owner of", err, 0)
		diags.AddError(summary, detail)
		return false
	}
	if principal == nil {
		summary, detail := ownerUnknown(noun, id)
		diags.AddError(summary, detail)
		return false
	}
	if principal.OwnerId != owner {
		summary, detail := wrongOwner(noun, id, owner, principal.OwnerId)
		diags.AddError(summary, detail)
		return false
	}
	return true
}

func sameOptionalInstant(a, b types.String) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	return sameInstant(a.ValueString(), b.ValueString())
}
