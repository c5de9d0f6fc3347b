package provider

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestClockVariable, test-only: an RFC 3339 instant the provider takes as "now" when planning
// scheduled rotations, so acceptance tests move time instead of sleeping. The Pulumi provider
// reads the same variable. Never set it in a real deployment.
const TestClockVariable = "GATEWAY_KEYS_TEST_NOW"

func now() (time.Time, error) {
	if fixed := os.Getenv(TestClockVariable); fixed != "" {
		at, err := time.Parse(time.RFC3339Nano, fixed)
		if err != nil {
			return time.Time{}, fmt.Errorf("%s must be an RFC 3339 instant (it is a test-only setting)", TestClockVariable)
		}
		return at, nil
	}
	return time.Now(), nil
}

// ModifyPlan says exactly what an apply will do to the key. A create gets its default
// client_reference. An update keeps every computed value the gateway will not change: the
// version is known after apply only when a PATCH or a rotation is sent, the secret only when the
// plan rotates it, and a planned rotation is named in a warning with its reason. The rotation is
// decided here, once, from the state and the clock; Update reads the decision back from the plan
// (an unknown secret), so a due date crossed between plan and apply waits for the next plan
// rather than rotate unannounced.
func (r *apiKeyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy: the key is revoked
	}
	var plan apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
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

	if !allKnown(ctx, plan.Name, plan.State, plan.SpendPolicy, plan.LoggingPolicy, plan.ModelPolicy, plan.RateLimitPolicy, plan.ExpiresAt, plan.Labels) {
		plan.Version, plan.Expired = types.Int64Unknown(), types.BoolUnknown()
	} else {
		declared, diags := declaredFields(ctx, plan)
		resp.Diagnostics.Append(diags...)
		current, diags := declaredFields(ctx, prior)
		resp.Diagnostics.Append(diags...)
		changed := changedFields(declared, current)
		if len(changed) > 0 {
			plan.Version = types.Int64Unknown()
		}
		if slices.Contains(changed, fieldExpiresAt) {
			plan.Expired = types.BoolUnknown()
		}
	}

	plan.SecretIssuedAt = prior.SecretIssuedAt
	at, err := now()
	if err != nil {
		resp.Diagnostics.AddError("Invalid test clock", err.Error())
		return
	}
	if reason := rotationReason(prior, plan, at); reason != "" {
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
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// rotationReason says why this plan rotates the key's secret, or "" when it does not:
//   - a new rotation_trigger value (added or removed too), except the first one an imported key
//     gets (the configuration that imports it declares it as it is);
//   - with rotate_after, a secret older than it (see secretIssuedAt); the rotation moves
//     secret_issued_at on, so one due date gives exactly one rotation.
func rotationReason(prior, plan apiKeyModel, at time.Time) string {
	if plan.RotationTrigger.IsUnknown() {
		return "rotation_trigger changes to a value known only at apply"
	}
	// An imported key's first trigger is recorded, not acted on: the import declared the key as it is.
	imported := prior.SecretIssuedAt.IsNull() && prior.RotationTrigger.IsNull()
	if !plan.RotationTrigger.Equal(prior.RotationTrigger) && !imported {
		return "rotation_trigger changed"
	}
	due, ok := parseDuration(plan.RotateAfter.ValueString())
	if plan.RotateAfter.IsNull() || plan.RotateAfter.IsUnknown() || !ok {
		return ""
	}
	issued, ok := secretIssuedAt(prior)
	if !ok || at.Before(issued.Add(due)) {
		return ""
	}
	return fmt.Sprintf("scheduled: the secret issued %s reached rotate_after %s", timeText(issued), plan.RotateAfter.ValueString())
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
