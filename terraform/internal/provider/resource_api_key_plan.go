package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// dueKey is the private-state key where a refresh records that rotate_after has come due, and why.
const dueKey = "rotation_due"

// privateData is what the framework's private state offers both ReadResponse and ModifyPlanRequest.
type privateData interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
	SetKey(context.Context, string, []byte) diag.Diagnostics
}

// recordDue, at refresh, takes the time `at` from the clock once: when the key's secret is older
// than its rotate_after, the reason goes into private state, where the plan reads it. The clock is
// read at refresh and nowhere else in a plan, because tofu plans a resource again during apply: a
// due date crossed between the two must not change the plan (it is found by the next refresh).
func recordDue(ctx context.Context, at time.Time, key apiKeyModel, private privateData) diag.Diagnostics {
	due, ok := parseDuration(key.RotateAfter.ValueString())
	issued, known := secretIssuedAt(key)
	if key.RotateAfter.IsNull() || !ok || !known || at.Before(issued.Add(due)) {
		return private.SetKey(ctx, dueKey, nil)
	}
	reason, _ := json.Marshal(fmt.Sprintf("scheduled: the secret issued %s reached rotate_after %s", timeText(issued), key.RotateAfter.ValueString()))
	return private.SetKey(ctx, dueKey, reason)
}

// ModifyPlan says exactly what an apply will do to the key. A create gets its default
// client_reference. An update keeps every computed value the gateway will not change: the
// version is known after apply only when a PATCH or a rotation is sent, the secret only when the
// plan rotates it, and a planned rotation is named in a warning with its reason. Update reads the
// decision back from the plan (an unknown secret).
func (r *apiKeyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy: the key is revoked
	}
	var plan apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// rotate_after in seconds goes to the gateway with the key, so it sends key.rotation_due at that age.
	plan.RotateAfterSeconds = plannedRotateAfterSeconds(plan)
	resp.Diagnostics.Append(graceSettingsProblems(plan)...)
	if req.State.Raw.IsNull() {
		if plan.ClientReference.IsUnknown() && !plan.Name.IsUnknown() {
			plan.ClientReference = types.StringValue("terraform:" + plan.Name.ValueString())
		}
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		return
	}
	var prior apiKeyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.ClientReference.IsUnknown() {
		plan.ClientReference = prior.ClientReference
	}
	plan.Version, plan.Hint, plan.Expired = prior.Version, prior.Hint, prior.Expired
	plan.Secret, plan.SecretKnown = prior.Secret, prior.SecretKnown
	plan.RotatedAt, plan.PreviousSecretExpiresAt = prior.RotatedAt, prior.PreviousSecretExpiresAt
	plan.SecretIssuedAt = prior.SecretIssuedAt
	if schedulesFromNow(prior, plan) {
		plan.SecretIssuedAt = types.StringUnknown()
	}

	if !allKnown(ctx, plan.Name, plan.State, plan.SpendPolicy, plan.LoggingPolicy, plan.ModelPolicy, plan.RateLimitPolicy, plan.ExpiresAt, plan.Labels, plan.TeamID,
		plan.BudgetAlertThresholds, plan.ExpiryWarning, plan.RotateAfterSeconds) {
		plan.Version = types.Int64Unknown()
	} else {
		declared, diags := declaredFields(ctx, plan)
		resp.Diagnostics.Append(diags...)
		current, diags := declaredFields(ctx, prior)
		resp.Diagnostics.Append(diags...)
		if changed := changedFields(declared, current); len(changed) > 0 {
			plan.Version = types.Int64Unknown()
		}
	}

	due, diags := req.Private.GetKey(ctx, dueKey)
	resp.Diagnostics.Append(diags...)
	if reason := rotationReason(prior, plan, due); reason != "" {
		plan.Version, plan.Hint = types.Int64Unknown(), types.StringUnknown()
		plan.Secret, plan.SecretKnown = types.StringUnknown(), types.BoolUnknown()
		plan.RotatedAt, plan.PreviousSecretExpiresAt = types.StringUnknown(), types.StringUnknown()
		plan.SecretIssuedAt = types.StringUnknown()
		grace := "the old secret stops working at once"
		if !plan.RotationGracePeriod.IsNull() {
			grace = "the old secret keeps working for " + plan.RotationGracePeriod.ValueString() + " (rotation_grace_period)"
		}
		resp.Diagnostics.AddWarning("Key will be rotated",
			fmt.Sprintf("Key %s (%s) gets a new secret in place at apply: %s. The key id stays; %s.", prior.ID.ValueString(), plan.Name.ValueString(), reason, grace))

		// The clock is read here for a warning only: it changes nothing in the plan.
		warning, diags := cutOffWarning(ctx, prior.ID.ValueString(), prior, r.now())
		resp.Diagnostics.Append(diags...)
		if warning != "" {
			resp.Diagnostics.AddWarning("Rotation cuts off clients of the previous secret", warning)
		}
	}
	// The use of each secret is the gateway's to say after any request; unchanged when none is sent.
	plan.CurrentSecret, plan.PreviousSecret = prior.CurrentSecret, prior.PreviousSecret
	if plan.Version.IsUnknown() {
		plan.CurrentSecret, plan.PreviousSecret = types.ObjectUnknown(secretUseTypes), types.ObjectUnknown(previousSecretTypes)
	}
	// Whether the key has expired is the gateway's to say after any request (its clock, the new expires_at).
	if plan.Version.IsUnknown() && !plan.ExpiresAt.IsNull() {
		plan.Expired = types.BoolUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// rotationReason says why this plan rotates the key's secret, or "" when it does not:
//   - a new rotation_trigger value (added or removed too), except the first one an imported key
//     gets (the configuration that imports it declares it as it is);
//   - with rotate_after, a secret older than it, as the refresh found (recordDue); the rotation
//     moves secret_issued_at on, so one due date gives exactly one rotation.
func rotationReason(prior, plan apiKeyModel, due []byte) string {
	if plan.RotationTrigger.IsUnknown() {
		return "rotation_trigger changes to a value known only at apply"
	}
	imported := prior.SecretIssuedAt.IsNull() && prior.RotationTrigger.IsNull()
	if !plan.RotationTrigger.Equal(prior.RotationTrigger) && !imported {
		return "rotation_trigger changed"
	}
	var reason string
	if plan.RotateAfter.IsNull() || prior.RotateAfter.IsNull() || json.Unmarshal(due, &reason) != nil {
		return ""
	}
	return reason
}

// schedulesFromNow: a rotate_after the key had not has its schedule start at this apply, as the
// Pulumi provider's does, so adding it (or importing a key with it) never rotates at once.
func schedulesFromNow(prior, plan apiKeyModel) bool {
	return prior.RotateAfter.IsNull() && !plan.RotateAfter.IsNull()
}

// rotationPlanned reads the plan's decision back in Update: a rotation leaves the secret unknown.
func rotationPlanned(plan apiKeyModel) bool { return plan.Secret.IsUnknown() }

func allKnown(ctx context.Context, values ...attr.Value) bool {
	for _, value := range values {
		raw, err := value.ToTerraformValue(ctx)
		if err != nil || !raw.IsFullyKnown() {
			return false
		}
	}
	return true
}
