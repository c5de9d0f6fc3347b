package provider

import (
	"context"
	"errors"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// maxReplayLinks bounds the replays followed before giving up on derived Idempotency-Keys: one per
// destroy-then-create of the same resource within the gateway's idempotency lifetime (24 h).
const maxReplayLinks = 20

// Create makes the key, and never a second key for one resource.
//
// A create is identified across applies by its client_reference (default "terraform:<name>"),
// stored on the key, and by an Idempotency-Key derived from that reference and the body. So
// whatever ended an earlier apply after the gateway created the key (a killed tofu, a lost
// connection), this create either
//   - gets that create's answer replayed, secret included (within the gateway's idempotency
//     lifetime), or
//   - is refused with 409 client_reference_in_use naming the live key.
//
// Either way it found a live key with this resource's reference. When the configuration set
// client_reference itself, the reference is this resource's alone (the user vouches for it), and
// the key is taken over: brought to the configuration and, unless the replayed secret still works,
// rotated. With the default reference, derived from the name, the key may as well be another
// configuration's (another workspace, a module used twice, a create_before_destroy replacement):
// the create stops, names the key and says how to import it. No second key is made either way.
//
// A replayed key revoked since (a destroy) does not count: the next Idempotency-Key is derived
// from the revoked key's id too, and a new key is made.
func (r *apiKeyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	declared, diags := declaredFields(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := declared.Name
	plan.SecretIssuedAt = issuedAt(r.now())
	var configuredReference types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_reference"), &configuredReference)...)
	vouched := !configuredReference.IsNull()
	body := createRequest(declared, plan.ClientReference.ValueString())
	after := "" // the revoked key that moved the chain on: part of the next derived Idempotency-Key
	for link := 0; link <= maxReplayLinks+2; link++ {
		idempotencyKey := account.IdempotencyKey("create", body, after)
		if link >= maxReplayLinks {
			// Past the chain's end a fresh key per attempt still keeps retries safe; the reference still finds the key.
			idempotencyKey = account.IdempotencyKey("create", body, after, link)
		}
		created, err := r.client.Create(ctx, body, idempotencyKey)
		var apiErr *account.APIError
		if errors.As(err, &apiErr) && apiErr.Code == "client_reference_in_use" && apiErr.KeyID != "" {
			if next, taken := r.takeOver(ctx, apiErr.KeyID, nil, vouched, declared, plan, &resp.Diagnostics); taken {
				resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
				return
			}
			if resp.Diagnostics.HasError() {
				return
			}
			continue // revoked in the meantime: the reference is free now
		}
		if err != nil {
			summary, detail := createFailure(name, err)
			resp.Diagnostics.AddError(summary, detail)
			return
		}
		if !created.Replayed {
			plan.Secret, plan.SecretKnown = types.StringValue(created.Secret), types.BoolValue(true)
			next, diags := stateOf(ctx, &created.Key, plan)
			resp.Diagnostics.Append(diags...)
			resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
			return
		}
		// The answer of a create an earlier apply made and never recorded. Its secret is good only
		// if nobody rotated the key since; a key revoked since belonged to a destroyed resource.
		replayed := &replayedSecret{secret: created.Secret, rotatedAt: nullableTime(created.Key.RotatedAt)}
		if next, taken := r.takeOver(ctx, created.Key.KeyId, replayed, vouched, declared, plan, &resp.Diagnostics); taken {
			resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
			return
		}
		if resp.Diagnostics.HasError() {
			return
		}
		after = created.Key.KeyId
	}
	resp.Diagnostics.AddError("Could not create key "+name, "The gateway kept answering with keys that are revoked; run `tofu apply` again.")
}

// replayedSecret is the secret of a replayed create answer, and the rotation it belongs to.
type replayedSecret struct {
	secret    string
	rotatedAt types.String
}

// takeOver makes the live key an interrupted apply created for this resource what the
// configuration declares (one PATCH if it differs) and, unless the replayed secret still works,
// rotates it; with a reference nobody vouched for, it stops with an error instead. It reports
// false when the key is revoked or gone (a new one is to be made), or on an error it adds to diags.
func (r *apiKeyResource) takeOver(ctx context.Context, keyID string, replayed *replayedSecret, vouched bool, declared keyFields, plan apiKeyModel, diags *diag.Diagnostics) (apiKeyModel, bool) {
	record, err := r.client.Get(ctx, keyID)
	if account.Is(err, "key_not_found") {
		return plan, false
	}
	if err != nil {
		summary, detail := describeFailure(keyID, "read", err, 0)
		diags.AddError(summary, detail)
		return plan, false
	}
	if record.State == gatewayapi.ApiKeyStateRevoked {
		return plan, false
	}
	if !vouched {
		summary, detail := referenceInUse(declared.Name, keyID, plan.ClientReference.ValueString())
		diags.AddError(summary, detail)
		return plan, false
	}
	secret := ""
	if replayed != nil && sameOptionalInstant(replayed.rotatedAt, nullableTime(record.RotatedAt)) {
		secret = replayed.secret
	}
	if changed := changedFields(declared, recordFields(record)); len(changed) > 0 {
		body := changeRequest(int64(record.Version), declared, changed)
		updated, err := r.client.Update(ctx, keyID, body, account.IdempotencyKey("change", keyID, body))
		if err != nil {
			summary, detail := describeFailure(keyID, "take over", err, int64(record.Version))
			diags.AddError(summary, detail)
			return plan, false
		}
		record = updated
	}
	rotated := secret == ""
	if rotated {
		// The secret went to an apply that died before recording it: nobody can hold it, so no grace.
		body := gatewayapi.RotateApiKeyRequest{ExpectedVersion: record.Version}
		answer, err := r.client.Rotate(ctx, keyID, body, account.IdempotencyKey("rotate", keyID, body))
		if err != nil {
			summary, detail := describeFailure(keyID, "take over", err, int64(record.Version))
			diags.AddError(summary, detail)
			return plan, false
		}
		record, secret = &answer.Key, answer.Secret
	}
	diags.AddWarning("Key taken over", tookOverWarning(declared.Name, keyID, plan.ClientReference.ValueString(), rotated))
	plan.Secret, plan.SecretKnown = types.StringValue(secret), types.BoolValue(true)
	next, d := stateOf(ctx, record, plan)
	diags.Append(d...)
	return next, !d.HasError()
}

// issuedAt is the secret_issued_at of a secret issued at `at`, read from the provider's clock.
func issuedAt(at time.Time) types.String { return types.StringValue(timeText(at)) }
