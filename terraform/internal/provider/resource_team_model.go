package provider

import (
	"context"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// teamModel is gatewaykeys_team's state and plan.
type teamModel struct {
	ID                    types.String `tfsdk:"id"`
	TeamID                types.String `tfsdk:"team_id"`
	Name                  types.String `tfsdk:"name"`
	Labels                types.Map    `tfsdk:"labels"`
	SpendPolicy           types.Object `tfsdk:"spend_policy"`
	RateLimitPolicy       types.Object `tfsdk:"rate_limit_policy"`
	ModelPolicy           types.Object `tfsdk:"model_policy"`
	BudgetAlertThresholds types.List   `tfsdk:"budget_alert_thresholds"`
	Version               types.Int64  `tfsdk:"version"`
	OwnerID               types.String `tfsdk:"owner_id"`
	CreatedAt             types.String `tfsdk:"created_at"`
	KeyCount              types.Int64  `tfsdk:"key_count"`
	SpendWindows          types.List   `tfsdk:"spend_windows"`
}

type spendWindowNowModel struct {
	LimitUnits  types.String `tfsdk:"limit_units"`
	ResetPeriod types.String `tfsdk:"reset_period"`
	SpentUnits  types.String `tfsdk:"spent_units"`
	StartedAt   types.String `tfsdk:"started_at"`
	ResetsAt    types.String `tfsdk:"resets_at"`
}

// teamFields are the fields of a team a PATCH can change, as the account API carries them: what a
// configuration declares and what the gateway has are compared in this one form.
type teamFields struct {
	Name                  string
	Labels                map[string]string
	SpendPolicy           *account.SpendPolicy
	RateLimitPolicy       *account.RateLimitPolicy
	ModelPolicy           account.ModelPolicy
	BudgetAlertThresholds []float64
}

// The changeable fields of a team by their account API names, in the order a plan lists them.
var teamChangeableFields = []string{"name", "labels", "spendPolicy", "rateLimitPolicy", "modelPolicy", "budgetAlertThresholds"}

// declaredTeam reads the changeable fields of a plan or state. Call it only when they are known.
func declaredTeam(ctx context.Context, m teamModel) (teamFields, diag.Diagnostics) {
	var diags diag.Diagnostics
	fields := teamFields{Name: m.Name.ValueString(), Labels: map[string]string{}, BudgetAlertThresholds: []float64{}}
	if !m.Labels.IsNull() {
		diags.Append(m.Labels.ElementsAs(ctx, &fields.Labels, false)...)
	}
	spend, d := declaredSpendPolicy(ctx, m.SpendPolicy)
	diags.Append(d...)
	fields.SpendPolicy = spend
	if !m.RateLimitPolicy.IsNull() {
		var rate rateLimitPolicyModel
		diags.Append(m.RateLimitPolicy.As(ctx, &rate, basetypes.ObjectAsOptions{})...)
		fields.RateLimitPolicy = &account.RateLimitPolicy{
			RequestsPerMinute: rate.RequestsPerMinute.ValueInt64Pointer(), TokensPerMinute: rate.TokensPerMinute.ValueInt64Pointer(),
			MaxConcurrentRequests: rate.MaxConcurrentRequests.ValueInt64Pointer(),
		}
	}
	var models modelPolicyModel
	diags.Append(m.ModelPolicy.As(ctx, &models, basetypes.ObjectAsOptions{})...)
	fields.ModelPolicy = account.ModelPolicy{Mode: models.Mode.ValueString(), ModelIDs: []string{}}
	diags.Append(models.ModelIDs.ElementsAs(ctx, &fields.ModelPolicy.ModelIDs, false)...)
	if !m.BudgetAlertThresholds.IsNull() {
		diags.Append(m.BudgetAlertThresholds.ElementsAs(ctx, &fields.BudgetAlertThresholds, false)...)
	}
	return fields, diags
}

// recordTeam reads the changeable fields of a team record.
func recordTeam(record *account.Team) teamFields {
	fields := teamFields{
		Name: record.Name, Labels: record.Labels, SpendPolicy: normalSpendPolicy(record.SpendPolicy), RateLimitPolicy: record.RateLimitPolicy,
		ModelPolicy: record.ModelPolicy, BudgetAlertThresholds: record.BudgetAlertThresholds,
	}
	if fields.Labels == nil {
		fields.Labels = map[string]string{}
	}
	if fields.ModelPolicy.ModelIDs == nil {
		fields.ModelPolicy.ModelIDs = []string{}
	}
	if fields.BudgetAlertThresholds == nil {
		fields.BudgetAlertThresholds = []float64{}
	}
	return fields
}

// changedTeamFields names the fields whose declared value differs from the team's (thresholds compared as the API's float32).
func changedTeamFields(declared, current teamFields) []string {
	differs := map[string]bool{
		"name":                  declared.Name != current.Name,
		"labels":                !sameJSON(declared.Labels, current.Labels),
		"spendPolicy":           !sameSpendPolicy(declared.SpendPolicy, current.SpendPolicy),
		"rateLimitPolicy":       !sameJSON(declared.RateLimitPolicy, current.RateLimitPolicy),
		"modelPolicy":           !sameJSON(declared.ModelPolicy, current.ModelPolicy),
		"budgetAlertThresholds": !sameJSON(float32s(declared.BudgetAlertThresholds), float32s(current.BudgetAlertThresholds)),
	}
	var changed []string
	for _, field := range teamChangeableFields {
		if differs[field] {
			changed = append(changed, field)
		}
	}
	return changed
}

// teamValue is a changeable field as a request carries it; a policy declared as none is null.
func teamValue(fields teamFields, field string) any {
	switch field {
	case "name":
		return fields.Name
	case "labels":
		return fields.Labels
	case "spendPolicy":
		if fields.SpendPolicy == nil {
			return nil
		}
		return spendPolicyRequest(fields.SpendPolicy)
	case "rateLimitPolicy":
		if fields.RateLimitPolicy == nil {
			return nil
		}
		return fields.RateLimitPolicy
	case "modelPolicy":
		return fields.ModelPolicy
	default:
		return fields.BudgetAlertThresholds
	}
}

// teamCreateRequest is the create body of a declared team: each field it sets (no policy it leaves out, no empty labels or thresholds).
func teamCreateRequest(fields teamFields) map[string]any {
	body := map[string]any{"name": fields.Name, "modelPolicy": fields.ModelPolicy}
	if len(fields.Labels) > 0 {
		body["labels"] = fields.Labels
	}
	if fields.SpendPolicy != nil {
		body["spendPolicy"] = spendPolicyRequest(fields.SpendPolicy)
	}
	if fields.RateLimitPolicy != nil {
		body["rateLimitPolicy"] = fields.RateLimitPolicy
	}
	if len(fields.BudgetAlertThresholds) > 0 {
		body["budgetAlertThresholds"] = fields.BudgetAlertThresholds
	}
	return body
}

// teamChangeRequest is the PATCH that brings a team at version to the declared fields it names.
func teamChangeRequest(version int64, fields teamFields, changed []string) map[string]any {
	body := map[string]any{"expectedVersion": version}
	for _, field := range changed {
		body[field] = teamValue(fields, field)
	}
	return body
}

// teamStateOf is the resource's state for a team record. Declared values the gateway keeps in
// another spelling (an amount, one window written as windows) keep the configuration's spelling.
func teamStateOf(ctx context.Context, record *account.Team, prior teamModel) (teamModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	fields := recordTeam(record)
	next := prior
	next.ID, next.TeamID = types.StringValue(record.TeamID), types.StringValue(record.TeamID)
	next.Name = types.StringValue(fields.Name)
	if len(fields.Labels) == 0 && (prior.Labels.IsNull() || prior.Labels.IsUnknown()) {
		next.Labels = types.MapNull(types.StringType)
	} else {
		labels, d := types.MapValueFrom(ctx, types.StringType, fields.Labels)
		diags.Append(d...)
		next.Labels = labels
	}
	spend, d := spendPolicyValue(ctx, fields.SpendPolicy, prior.SpendPolicy)
	diags.Append(d...)
	next.SpendPolicy = spend
	next.RateLimitPolicy = types.ObjectNull(rateLimitTypes)
	if rate := fields.RateLimitPolicy; rate != nil {
		value, d := types.ObjectValueFrom(ctx, rateLimitTypes, rateLimitPolicyModel{
			RequestsPerMinute: types.Int64PointerValue(rate.RequestsPerMinute), TokensPerMinute: types.Int64PointerValue(rate.TokensPerMinute),
			MaxConcurrentRequests: types.Int64PointerValue(rate.MaxConcurrentRequests),
		})
		diags.Append(d...)
		next.RateLimitPolicy = value
	}
	ids, d := types.ListValueFrom(ctx, types.StringType, fields.ModelPolicy.ModelIDs)
	diags.Append(d...)
	models, d := types.ObjectValueFrom(ctx, modelPolicyTypes, modelPolicyModel{Mode: types.StringValue(fields.ModelPolicy.Mode), ModelIDs: ids})
	diags.Append(d...)
	next.ModelPolicy = models
	if len(fields.BudgetAlertThresholds) == 0 && (prior.BudgetAlertThresholds.IsNull() || prior.BudgetAlertThresholds.IsUnknown()) {
		next.BudgetAlertThresholds = types.ListNull(types.Float64Type)
	} else if prior.BudgetAlertThresholds.IsNull() || prior.BudgetAlertThresholds.IsUnknown() || !sameJSON(float32s(mustFloats(ctx, prior.BudgetAlertThresholds)), float32s(fields.BudgetAlertThresholds)) {
		thresholds, d := types.ListValueFrom(ctx, types.Float64Type, fields.BudgetAlertThresholds)
		diags.Append(d...)
		next.BudgetAlertThresholds = thresholds
	}
	next.Version = types.Int64Value(record.Version)
	next.OwnerID = types.StringValue(record.OwnerID)
	next.CreatedAt = types.StringValue(record.CreatedAt)
	next.KeyCount = types.Int64Value(record.KeyCount)
	windows := make([]spendWindowNowModel, 0, len(record.SpendWindows))
	for _, window := range record.SpendWindows {
		windows = append(windows, spendWindowNowModel{
			LimitUnits: types.StringValue(window.LimitUnits), ResetPeriod: types.StringValue(window.ResetPeriod), SpentUnits: types.StringValue(window.SpentUnits),
			StartedAt: types.StringValue(window.StartedAt), ResetsAt: types.StringPointerValue(window.ResetsAt),
		})
	}
	list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: spendWindowNowTypes}, windows)
	diags.Append(d...)
	next.SpendWindows = list
	return next, diags
}

// mustFloats reads a known list of numbers (an unreadable one reads as none).
func mustFloats(ctx context.Context, list types.List) []float64 {
	values := []float64{}
	_ = list.ElementsAs(ctx, &values, false)
	return values
}
