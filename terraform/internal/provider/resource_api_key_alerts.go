package provider

// The alert fields of a key: budget_alert_thresholds (fractions of the spend limit that send
// key.budget_threshold), expiry_warning (how long before expires_at key.expiring is sent) and
// rotate_after_seconds (rotate_after in seconds, at which age of the secret the gateway sends
// key.rotation_due). Each is one more field of the account API's PATCH, changed in place.

import (
	"context"
	"strconv"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const (
	fieldBudgetAlertThresholds = "budgetAlertThresholds"
	fieldExpiryWarningSeconds  = "expiryWarningSeconds"
	fieldRotateAfterSeconds    = "rotateAfterSeconds"
)

// expiryWarningValidator: from a minute to the contract's year.
var expiryWarningValidator = durationValidator{
	units: "smhd", min: time.Minute, max: 365 * 24 * time.Hour,
	expected: `a duration such as "7d", "12h" or "90m" (a whole number of days, hours, minutes or seconds), from 1m to 365d`,
}

// alertAttributes are the key's alert attributes, added to gatewaykeys_api_key's schema.
func alertAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"budget_alert_thresholds": schema.ListAttribute{
			ElementType: types.Float64Type, Optional: true,
			Description: "Fractions of spend_policy.limit_units at which the gateway sends a key.budget_threshold webhook event, at most once per spend " +
				"window each (a new window re-arms them): greater than 0, at most 1, ascending, up to 10, e.g. [0.5, 0.8, 1]. Left out: none.",
			Validators: []validator.List{listvalidator.SizeAtMost(10)},
		},
		"expiry_warning": schema.StringAttribute{
			Optional:    true,
			Description: `How long before expires_at the gateway sends a key.expiring webhook event: "7d", "12h", "90m", from 1m to 365d. Left out: no warning.`,
			Validators:  []validator.String{expiryWarningValidator},
		},
		"rotate_after_seconds": schema.Int64Attribute{
			Computed:    true,
			Description: "rotate_after in seconds, as the key carries it on the gateway: at that age of the secret the gateway sends key.rotation_due. Null without rotate_after.",
		},
	}
}

// secondsOf is a duration attribute in whole seconds, or nil when it is null or not a duration.
func secondsOf(value types.String) *int {
	if value.IsNull() || value.IsUnknown() {
		return nil
	}
	length, ok := parseDuration(value.ValueString())
	if !ok {
		return nil
	}
	return ptr(int(length.Seconds()))
}

// plannedRotateAfterSeconds is what the plan sends as rotateAfterSeconds: rotate_after's length.
func plannedRotateAfterSeconds(m apiKeyModel) types.Int64 {
	if m.RotateAfter.IsUnknown() {
		return types.Int64Unknown()
	}
	return int64OrNull(secondsOf(m.RotateAfter))
}

// declaredAlerts reads the alert fields of a plan or state into fields.
func declaredAlerts(ctx context.Context, m apiKeyModel, fields *keyFields) diag.Diagnostics {
	var diags diag.Diagnostics
	fields.BudgetAlertThresholds = []float64{}
	if !m.BudgetAlertThresholds.IsNull() {
		diags.Append(m.BudgetAlertThresholds.ElementsAs(ctx, &fields.BudgetAlertThresholds, false)...)
	}
	fields.ExpiryWarningSeconds = secondsOf(m.ExpiryWarning)
	fields.RotateAfterSeconds = intOrNil(m.RotateAfterSeconds)
	return diags
}

// recordAlerts reads the alert fields of a key record into fields.
func recordAlerts(record *gatewayapi.ApiKey, fields *keyFields) {
	fields.BudgetAlertThresholds = []float64{}
	for _, fraction := range record.BudgetAlertThresholds {
		fields.BudgetAlertThresholds = append(fields.BudgetAlertThresholds, float64(fraction))
	}
	if seconds, err := record.ExpiryWarningSeconds.Get(); err == nil {
		fields.ExpiryWarningSeconds = &seconds
	}
	if seconds, err := record.RotateAfterSeconds.Get(); err == nil {
		fields.RotateAfterSeconds = &seconds
	}
}

// changedAlerts says which alert fields differ; thresholds compare as float32, as the account API carries them.
func changedAlerts(declared, current keyFields) map[string]bool {
	return map[string]bool{
		fieldBudgetAlertThresholds: !sameJSON(float32s(declared.BudgetAlertThresholds), float32s(current.BudgetAlertThresholds)),
		fieldExpiryWarningSeconds:  !sameJSON(declared.ExpiryWarningSeconds, current.ExpiryWarningSeconds),
		fieldRotateAfterSeconds:    !sameJSON(declared.RotateAfterSeconds, current.RotateAfterSeconds),
	}
}

func float32s(values []float64) []float32 {
	out := make([]float32, len(values))
	for i, value := range values {
		out[i] = float32(value)
	}
	return out
}

// createAlerts adds the alert fields a key declares to its create request; none it leaves out,
// so a gateway from before webhooks takes a key without alerts.
func createAlerts(fields keyFields, body *gatewayapi.CreateApiKeyRequest) {
	if len(fields.BudgetAlertThresholds) > 0 {
		body.BudgetAlertThresholds = ptr(float32s(fields.BudgetAlertThresholds))
	}
	if fields.ExpiryWarningSeconds != nil {
		body.ExpiryWarningSeconds.Set(*fields.ExpiryWarningSeconds)
	}
	if fields.RotateAfterSeconds != nil {
		body.RotateAfterSeconds.Set(*fields.RotateAfterSeconds)
	}
}

// changeAlert puts one changed alert field into a PATCH; one declared as none is sent as null (thresholds as []).
func changeAlert(field string, fields keyFields, body *gatewayapi.UpdateApiKeyRequest) {
	switch field {
	case fieldBudgetAlertThresholds:
		body.BudgetAlertThresholds = ptr(float32s(fields.BudgetAlertThresholds))
	case fieldExpiryWarningSeconds:
		if fields.ExpiryWarningSeconds == nil {
			body.ExpiryWarningSeconds.SetNull()
		} else {
			body.ExpiryWarningSeconds.Set(*fields.ExpiryWarningSeconds)
		}
	case fieldRotateAfterSeconds:
		if fields.RotateAfterSeconds == nil {
			body.RotateAfterSeconds.SetNull()
		} else {
			body.RotateAfterSeconds.Set(*fields.RotateAfterSeconds)
		}
	}
}

// alertsState writes a record's alert fields into the next state, keeping the configuration's
// spelling while it means the same (0.8 stays 0.8, "7d" stays "7d"; none stays left out).
func alertsState(ctx context.Context, fields keyFields, prior apiKeyModel, next *apiKeyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	var declared []float64
	if !prior.BudgetAlertThresholds.IsNull() && !prior.BudgetAlertThresholds.IsUnknown() {
		diags.Append(prior.BudgetAlertThresholds.ElementsAs(ctx, &declared, false)...)
	}
	switch {
	case len(fields.BudgetAlertThresholds) == 0 && (prior.BudgetAlertThresholds.IsNull() || prior.BudgetAlertThresholds.IsUnknown()):
		next.BudgetAlertThresholds = types.ListNull(types.Float64Type)
	case declared != nil && sameJSON(float32s(declared), float32s(fields.BudgetAlertThresholds)):
		next.BudgetAlertThresholds = prior.BudgetAlertThresholds
	default:
		list, d := types.ListValueFrom(ctx, types.Float64Type, fields.BudgetAlertThresholds)
		diags.Append(d...)
		next.BudgetAlertThresholds = list
	}
	next.ExpiryWarning = types.StringNull()
	if seconds := fields.ExpiryWarningSeconds; seconds != nil {
		next.ExpiryWarning = types.StringValue(durationText(*seconds))
		if declaredSeconds := secondsOf(prior.ExpiryWarning); declaredSeconds != nil && *declaredSeconds == *seconds {
			next.ExpiryWarning = prior.ExpiryWarning
		}
	}
	next.RotateAfterSeconds = int64OrNull(fields.RotateAfterSeconds)
	return diags
}

// durationText is a number of seconds in the largest unit that divides it: 604800 is "7d".
func durationText(seconds int) string {
	for _, unit := range []string{"d", "h", "m"} {
		size := int(durationUnits[unit].Seconds())
		if seconds%size == 0 {
			return strconv.Itoa(seconds/size) + unit
		}
	}
	return strconv.Itoa(seconds) + "s"
}
