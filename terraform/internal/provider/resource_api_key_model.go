package provider

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// apiKeyModel is the resource's state and plan: what the configuration declares, what the gateway
// says of the key, and what only the state carries (the secret and the rotation settings).
type apiKeyModel struct {
	ID                      types.String `tfsdk:"id"`
	KeyID                   types.String `tfsdk:"key_id"`
	Name                    types.String `tfsdk:"name"`
	State                   types.String `tfsdk:"state"`
	SpendPolicy             types.Object `tfsdk:"spend_policy"`
	LoggingPolicy           types.Object `tfsdk:"logging_policy"`
	ModelPolicy             types.Object `tfsdk:"model_policy"`
	RateLimitPolicy         types.Object `tfsdk:"rate_limit_policy"`
	ExpiresAt               types.String `tfsdk:"expires_at"`
	Labels                  types.Map    `tfsdk:"labels"`
	TeamID                  types.String `tfsdk:"team_id"`
	RotationTrigger         types.String `tfsdk:"rotation_trigger"`
	RotateAfter             types.String `tfsdk:"rotate_after"`
	RotationGracePeriod     types.String `tfsdk:"rotation_grace_period"`
	ClientReference         types.String `tfsdk:"client_reference"`
	Version                 types.Int64  `tfsdk:"version"`
	Secret                  types.String `tfsdk:"secret"`
	SecretKnown             types.Bool   `tfsdk:"secret_known"`
	Hint                    types.String `tfsdk:"hint"`
	OwnerID                 types.String `tfsdk:"owner_id"`
	CreatedAt               types.String `tfsdk:"created_at"`
	RotatedAt               types.String `tfsdk:"rotated_at"`
	PreviousSecretExpiresAt types.String `tfsdk:"previous_secret_expires_at"`
	Expired                 types.Bool   `tfsdk:"expired"`
	SecretIssuedAt          types.String `tfsdk:"secret_issued_at"`
	BudgetAlertThresholds   types.List   `tfsdk:"budget_alert_thresholds"`
	ExpiryWarning           types.String `tfsdk:"expiry_warning"`
	RotateAfterSeconds      types.Int64  `tfsdk:"rotate_after_seconds"`
	// Extension secret_use (resource_api_key_secret_use.go).
	RetireWhenIdle types.String `tfsdk:"retire_when_idle"`
	InUseWarning   types.String `tfsdk:"in_use_warning"`
	CurrentSecret  types.Object `tfsdk:"current_secret"`
	PreviousSecret types.Object `tfsdk:"previous_secret"`
}

type loggingPolicyModel struct {
	StoreRequest  types.Bool  `tfsdk:"store_request"`
	StoreResponse types.Bool  `tfsdk:"store_response"`
	RetentionDays types.Int64 `tfsdk:"retention_days"`
}

type modelPolicyModel struct {
	Mode     types.String `tfsdk:"mode"`
	ModelIDs types.List   `tfsdk:"model_ids"`
}

type rateLimitPolicyModel struct {
	RequestsPerMinute     types.Int64 `tfsdk:"requests_per_minute"`
	TokensPerMinute       types.Int64 `tfsdk:"tokens_per_minute"`
	MaxConcurrentRequests types.Int64 `tfsdk:"max_concurrent_requests"`
}

// keyFields are the fields of a key a PATCH can change, as the account API carries them: what a
// configuration declares and what the gateway has are compared in this one form.
type keyFields struct {
	Name            string
	State           string
	SpendPolicy     *account.SpendPolicy
	LoggingPolicy   gatewayapi.LoggingPolicy
	ModelPolicy     gatewayapi.ModelPolicy
	RateLimitPolicy *gatewayapi.RateLimitPolicy
	ExpiresAt       *time.Time
	Labels          map[string]string
	// TeamID is the key's team; "" for none.
	TeamID string
	// The alert fields (resource_api_key_alerts.go).
	BudgetAlertThresholds []float64
	ExpiryWarningSeconds  *int
	RotateAfterSeconds    *int
}

// The changeable fields by their account API names, in the order a plan lists them.
const (
	fieldName            = "name"
	fieldState           = "state"
	fieldSpendPolicy     = "spendPolicy"
	fieldLoggingPolicy   = "loggingPolicy"
	fieldModelPolicy     = "modelPolicy"
	fieldRateLimitPolicy = "rateLimitPolicy"
	fieldExpiresAt       = "expiresAt"
	fieldLabels          = "labels"
	fieldTeamID          = "teamId"
)

var changeableFields = []string{
	fieldName, fieldState, fieldSpendPolicy, fieldLoggingPolicy, fieldModelPolicy, fieldRateLimitPolicy, fieldExpiresAt, fieldLabels, fieldTeamID,
	fieldBudgetAlertThresholds, fieldExpiryWarningSeconds, fieldRotateAfterSeconds,
}

// declaredFields reads the changeable fields of a plan or state. Call it only when they are known.
func declaredFields(ctx context.Context, m apiKeyModel) (keyFields, diag.Diagnostics) {
	var diags diag.Diagnostics
	fields := keyFields{Name: m.Name.ValueString(), State: m.State.ValueString(), Labels: map[string]string{}, TeamID: m.TeamID.ValueString()}
	spend, d := declaredSpendPolicy(ctx, m.SpendPolicy)
	diags.Append(d...)
	fields.SpendPolicy = spend
	var logging loggingPolicyModel
	diags.Append(m.LoggingPolicy.As(ctx, &logging, basetypes.ObjectAsOptions{})...)
	fields.LoggingPolicy = gatewayapi.LoggingPolicy{
		StoreRequest: ptr(logging.StoreRequest.ValueBool()), StoreResponse: ptr(logging.StoreResponse.ValueBool()),
		RetentionDays: ptr(int(logging.RetentionDays.ValueInt64())),
	}
	var models modelPolicyModel
	diags.Append(m.ModelPolicy.As(ctx, &models, basetypes.ObjectAsOptions{})...)
	ids := []string{}
	diags.Append(models.ModelIDs.ElementsAs(ctx, &ids, false)...)
	mode := gatewayapi.ModelPolicyMode(models.Mode.ValueString())
	fields.ModelPolicy = gatewayapi.ModelPolicy{Mode: &mode, ModelIds: &ids}
	if !m.RateLimitPolicy.IsNull() {
		var rate rateLimitPolicyModel
		diags.Append(m.RateLimitPolicy.As(ctx, &rate, basetypes.ObjectAsOptions{})...)
		fields.RateLimitPolicy = &gatewayapi.RateLimitPolicy{
			RequestsPerMinute: intOrNil(rate.RequestsPerMinute), TokensPerMinute: intOrNil(rate.TokensPerMinute),
			MaxConcurrentRequests: intOrNil(rate.MaxConcurrentRequests),
		}
	}
	if !m.ExpiresAt.IsNull() {
		at, err := time.Parse(time.RFC3339Nano, m.ExpiresAt.ValueString())
		if err != nil {
			diags.AddError("Invalid expires_at", err.Error())
		}
		fields.ExpiresAt = &at
	}
	if !m.Labels.IsNull() {
		diags.Append(m.Labels.ElementsAs(ctx, &fields.Labels, false)...)
	}
	diags.Append(declaredAlerts(ctx, m, &fields)...)
	return fields, diags
}

// changedFields names the fields whose declared value differs from the key's, one amount or
// instant in two spellings being no change.
func changedFields(declared, current keyFields) []string {
	var changed []string
	differs := map[string]bool{
		fieldName:            declared.Name != current.Name,
		fieldState:           declared.State != current.State,
		fieldSpendPolicy:     !sameSpendPolicy(declared.SpendPolicy, current.SpendPolicy),
		fieldLoggingPolicy:   !sameJSON(declared.LoggingPolicy, current.LoggingPolicy),
		fieldModelPolicy:     !sameJSON(declared.ModelPolicy, current.ModelPolicy),
		fieldRateLimitPolicy: !sameJSON(declared.RateLimitPolicy, current.RateLimitPolicy),
		fieldExpiresAt:       !sameTime(declared.ExpiresAt, current.ExpiresAt),
		fieldLabels:          !sameJSON(declared.Labels, current.Labels),
		fieldTeamID:          declared.TeamID != current.TeamID,
	}
	for field, differ := range changedAlerts(declared, current) {
		differs[field] = differ
	}
	for _, field := range changeableFields {
		if differs[field] {
			changed = append(changed, field)
		}
	}
	return changed
}

// createRequest is the create body of a declared key: each policy it sets, none it leaves out.
func createRequest(fields keyFields, reference string) gatewayapi.CreateApiKeyRequest {
	state := gatewayapi.CreateApiKeyRequestState(fields.State)
	body := gatewayapi.CreateApiKeyRequest{
		Name: fields.Name, State: &state, LoggingPolicy: &fields.LoggingPolicy, ModelPolicy: &fields.ModelPolicy,
	}
	if reference != "" {
		body.ClientReference = &reference
	}
	if fields.SpendPolicy != nil {
		body.SpendPolicy.Set(spendPolicyBody(fields.SpendPolicy))
	}
	if fields.RateLimitPolicy != nil {
		body.RateLimitPolicy.Set(*fields.RateLimitPolicy)
	}
	if fields.ExpiresAt != nil {
		body.ExpiresAt.Set(fields.ExpiresAt.UTC())
	}
	if len(fields.Labels) > 0 {
		body.Labels = &fields.Labels
	}
	if fields.TeamID != "" {
		body.TeamId.Set(fields.TeamID)
	}
	createAlerts(fields, &body)
	return body
}

// changeRequest is the PATCH that brings a key at version to the declared fields it names; a
// policy declared as none is sent as null, which clears it.
func changeRequest(version int64, fields keyFields, changed []string) gatewayapi.UpdateApiKeyRequest {
	body := gatewayapi.UpdateApiKeyRequest{ExpectedVersion: int(version)}
	for _, field := range changed {
		switch field {
		case fieldName:
			body.Name = &fields.Name
		case fieldState:
			state := gatewayapi.UpdateApiKeyRequestState(fields.State)
			body.State = &state
		case fieldSpendPolicy:
			if fields.SpendPolicy == nil {
				body.SpendPolicy.SetNull()
			} else {
				body.SpendPolicy.Set(spendPolicyBody(fields.SpendPolicy))
			}
		case fieldLoggingPolicy:
			body.LoggingPolicy = &fields.LoggingPolicy
		case fieldModelPolicy:
			body.ModelPolicy = &fields.ModelPolicy
		case fieldRateLimitPolicy:
			if fields.RateLimitPolicy == nil {
				body.RateLimitPolicy.SetNull()
			} else {
				body.RateLimitPolicy.Set(*fields.RateLimitPolicy)
			}
		case fieldExpiresAt:
			if fields.ExpiresAt == nil {
				body.ExpiresAt.SetNull()
			} else {
				body.ExpiresAt.Set(fields.ExpiresAt.UTC())
			}
		case fieldLabels:
			body.Labels = &fields.Labels
		case fieldTeamID:
			if fields.TeamID == "" {
				body.TeamId.SetNull()
			} else {
				body.TeamId.Set(fields.TeamID)
			}
		default:
			changeAlert(field, fields, &body)
		}
	}
	return body
}

// spendPolicyBody is a declared spend policy as the generated client's request type carries it
// (see spendPolicyRequest): the same JSON, so the two forms need no code of their own here.
func spendPolicyBody(policy *account.SpendPolicy) gatewayapi.SpendPolicy {
	var body gatewayapi.SpendPolicy
	text, _ := json.Marshal(spendPolicyRequest(policy))
	_ = json.Unmarshal(text, &body) // the same schema on both sides: it always reads
	return body
}

// recordFields reads the changeable fields of a key record.
func recordFields(record *gatewayapi.ApiKey) keyFields {
	fields := keyFields{Name: record.Name, State: string(record.State), Labels: record.Labels}
	if fields.Labels == nil {
		fields.Labels = map[string]string{}
	}
	if spend, err := record.SpendPolicy.Get(); err == nil {
		// Unreadable, it reads as none: the next plan then shows the declared policy as a change.
		fields.SpendPolicy, _ = recordSpendPolicy(spend)
	}
	fields.LoggingPolicy = gatewayapi.LoggingPolicy{
		StoreRequest: ptr(record.LoggingPolicy.StoreRequest), StoreResponse: ptr(record.LoggingPolicy.StoreResponse),
		RetentionDays: ptr(record.LoggingPolicy.RetentionDays),
	}
	mode := gatewayapi.ModelPolicyMode(unionText(record.ModelPolicy.Mode))
	ids := append([]string{}, record.ModelPolicy.ModelIds...)
	fields.ModelPolicy = gatewayapi.ModelPolicy{Mode: &mode, ModelIds: &ids}
	if rate, err := record.RateLimitPolicy.Get(); err == nil {
		fields.RateLimitPolicy = &gatewayapi.RateLimitPolicy{
			RequestsPerMinute: rate.RequestsPerMinute, TokensPerMinute: rate.TokensPerMinute, MaxConcurrentRequests: rate.MaxConcurrentRequests,
		}
	}
	if at, err := record.ExpiresAt.Get(); err == nil {
		fields.ExpiresAt = &at
	}
	if team, err := record.TeamId.Get(); err == nil {
		fields.TeamID = team
	}
	recordAlerts(record, &fields)
	return fields
}

// stateOf is the resource's state for a key record. Declared values the gateway keeps in another
// spelling (an amount, an instant) keep the configuration's spelling while they mean the same, so
// reading a key back never shows a change; what only the state holds comes from prior.
func stateOf(ctx context.Context, record *gatewayapi.ApiKey, prior apiKeyModel) (apiKeyModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	fields := recordFields(record)
	next := prior
	next.ID = types.StringValue(record.KeyId)
	next.KeyID = types.StringValue(record.KeyId)
	next.Name = types.StringValue(fields.Name)
	next.State = types.StringValue(fields.State)

	spend, d := spendPolicyValue(ctx, fields.SpendPolicy, prior.SpendPolicy)
	diags.Append(d...)
	next.SpendPolicy = spend
	logging, d := types.ObjectValueFrom(ctx, loggingPolicyTypes, loggingPolicyModel{
		StoreRequest: types.BoolValue(*fields.LoggingPolicy.StoreRequest), StoreResponse: types.BoolValue(*fields.LoggingPolicy.StoreResponse),
		RetentionDays: types.Int64Value(int64(*fields.LoggingPolicy.RetentionDays)),
	})
	diags.Append(d...)
	next.LoggingPolicy = logging
	ids, d := types.ListValueFrom(ctx, types.StringType, *fields.ModelPolicy.ModelIds)
	diags.Append(d...)
	models, d := types.ObjectValueFrom(ctx, modelPolicyTypes, modelPolicyModel{Mode: types.StringValue(string(*fields.ModelPolicy.Mode)), ModelIDs: ids})
	diags.Append(d...)
	next.ModelPolicy = models

	next.RateLimitPolicy = types.ObjectNull(rateLimitTypes)
	if rate := fields.RateLimitPolicy; rate != nil {
		value, d := types.ObjectValueFrom(ctx, rateLimitTypes, rateLimitPolicyModel{
			RequestsPerMinute: int64OrNull(rate.RequestsPerMinute), TokensPerMinute: int64OrNull(rate.TokensPerMinute),
			MaxConcurrentRequests: int64OrNull(rate.MaxConcurrentRequests),
		})
		diags.Append(d...)
		next.RateLimitPolicy = value
	}
	next.ExpiresAt = types.StringNull()
	if fields.ExpiresAt != nil {
		next.ExpiresAt = types.StringValue(timeText(*fields.ExpiresAt))
		if !prior.ExpiresAt.IsNull() && !prior.ExpiresAt.IsUnknown() && sameInstant(prior.ExpiresAt.ValueString(), timeText(*fields.ExpiresAt)) {
			next.ExpiresAt = prior.ExpiresAt
		}
	}
	// No labels reads as the configuration wrote it: left out, or an empty map.
	if len(fields.Labels) == 0 && (prior.Labels.IsNull() || prior.Labels.IsUnknown()) {
		next.Labels = types.MapNull(types.StringType)
	} else {
		labels, d := types.MapValueFrom(ctx, types.StringType, fields.Labels)
		diags.Append(d...)
		next.Labels = labels
	}

	next.TeamID = types.StringNull()
	if fields.TeamID != "" {
		next.TeamID = types.StringValue(fields.TeamID)
	}
	if reference, err := record.ClientReference.Get(); err == nil && (prior.ClientReference.IsNull() || prior.ClientReference.IsUnknown()) {
		next.ClientReference = types.StringValue(reference)
	} else if prior.ClientReference.IsUnknown() {
		next.ClientReference = types.StringNull()
	}
	diags.Append(alertsState(ctx, fields, prior, &next)...)
	next.Version = types.Int64Value(int64(record.Version))
	next.Hint = types.StringValue(record.Hint)
	next.OwnerID = types.StringValue(record.OwnerId)
	next.CreatedAt = types.StringValue(timeText(record.CreatedAt))
	next.RotatedAt = nullableTime(record.RotatedAt)
	next.PreviousSecretExpiresAt = nullableTime(record.PreviousSecretExpiresAt)
	next.Expired = types.BoolValue(record.Expired)
	current, previous, d := secretUseState(ctx, record)
	diags.Append(d...)
	next.CurrentSecret, next.PreviousSecret = current, previous
	if next.Secret.IsUnknown() {
		next.Secret = types.StringNull()
	}
	if next.SecretKnown.IsUnknown() || next.SecretKnown.IsNull() {
		next.SecretKnown = types.BoolValue(false)
	}
	return next, diags
}

// secretIssuedAt is when the key's current secret was issued, as rotate_after counts: the plan
// that created or rotated it; for an imported key, its last rotation on the gateway, else its creation.
func secretIssuedAt(m apiKeyModel) (time.Time, bool) {
	text := m.CreatedAt.ValueString()
	switch {
	case !m.SecretIssuedAt.IsNull() && !m.SecretIssuedAt.IsUnknown():
		text = m.SecretIssuedAt.ValueString()
	case !m.RotatedAt.IsNull():
		text = m.RotatedAt.ValueString()
	}
	at, err := time.Parse(time.RFC3339Nano, text)
	return at, err == nil
}

func timeText(at time.Time) string { return at.UTC().Format(time.RFC3339Nano) }

func nullableTime(value interface{ Get() (time.Time, error) }) types.String {
	if at, err := value.Get(); err == nil {
		return types.StringValue(timeText(at))
	}
	return types.StringNull()
}

// unionText is the text of a value the record reads loosely (an enum a newer gateway may extend).
func unionText(value json.Marshaler) string {
	raw, err := value.MarshalJSON()
	if err != nil {
		return ""
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return ""
	}
	return text
}

// unitsText is an amount of credits as the record carries it: a decimal string.
func unitsText(value interface{}) string {
	if text, ok := value.(string); ok {
		return text
	}
	raw, _ := json.Marshal(value)
	return string(raw)
}

func sameJSON(a, b any) bool {
	textA, errA := json.Marshal(a)
	textB, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(textA) == string(textB)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Truncate(time.Millisecond).Equal(b.Truncate(time.Millisecond)) // the gateway keeps milliseconds
}

func ptr[T any](value T) *T { return &value }

// deref is the value a pointer points at, or the zero value for nil.
func deref[T any](value *T) T {
	if value == nil {
		var zero T
		return zero
	}
	return *value
}

func intOrNil(value types.Int64) *int {
	if value.IsNull() || value.IsUnknown() {
		return nil
	}
	return ptr(int(value.ValueInt64()))
}

func int64OrNull(value *int) types.Int64 {
	if value == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*value))
}
