package provider

// Extension secret_use as configuration: retire_when_idle and in_use_warning go with each rotation
// (retireWhenIdleSeconds, inUseWarningSeconds); current_secret and previous_secret are the
// gateway's figures of each secret's use, read-only (a refresh brings them in, never a change);
// and a plan that rotates a key whose previous secret is still in use warns, naming its clients.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// inUseWindow is the contract's IN_USE_WINDOW_SECONDS: how long a previous secret may go unused and
// still count as in use when its rotation set no retireWhenIdleSeconds.
const inUseWindow = time.Hour

// clientsNamed is how many clients a warning names before it says how many more there are.
const clientsNamed = 5

// retireWhenIdleValidator: the contract's few seconds to its seven days.
var retireWhenIdleValidator = durationValidator{
	units: "smhd", min: 5 * time.Second, max: 7 * 24 * time.Hour,
	expected: `a duration such as "15m", "1h" or "30s" (a whole number of days, hours, minutes or seconds), from 5s to 7d`,
}

// inUseWarningValidator: a second to seven days (and shorter than the grace, checked in the plan).
var inUseWarningValidator = durationValidator{
	units: "smhd", min: time.Second, max: 7 * 24 * time.Hour,
	expected: `a duration such as "15m", "1h" or "30s" (a whole number of days, hours, minutes or seconds), from 1s to 7d`,
}

var (
	secretClientTypes = map[string]attr.Type{
		"user_agent": types.StringType, "address": types.StringType, "first_seen_at": types.StringType,
		"last_seen_at": types.StringType, "requests": types.Int64Type,
	}
	secretUseTypes = map[string]attr.Type{
		"hint": types.StringType, "last_used_at": types.StringType, "requests_since_rotation": types.Int64Type,
		"clients": types.ListType{ElemType: types.ObjectType{AttrTypes: secretClientTypes}},
	}
	previousSecretTypes = withTypes(secretUseTypes, map[string]attr.Type{
		"expires_at": types.StringType, "retire_when_idle_seconds": types.Int64Type, "in_use_warning_at": types.StringType,
		"retired_at": types.StringType, "retired_reason": types.StringType,
	})
)

func withTypes(base, more map[string]attr.Type) map[string]attr.Type {
	all := map[string]attr.Type{}
	for name, typ := range base {
		all[name] = typ
	}
	for name, typ := range more {
		all[name] = typ
	}
	return all
}

type secretClientModel struct {
	UserAgent   types.String `tfsdk:"user_agent"`
	Address     types.String `tfsdk:"address"`
	FirstSeenAt types.String `tfsdk:"first_seen_at"`
	LastSeenAt  types.String `tfsdk:"last_seen_at"`
	Requests    types.Int64  `tfsdk:"requests"`
}

type secretUseModel struct {
	Hint                  types.String `tfsdk:"hint"`
	LastUsedAt            types.String `tfsdk:"last_used_at"`
	RequestsSinceRotation types.Int64  `tfsdk:"requests_since_rotation"`
	Clients               types.List   `tfsdk:"clients"`
}

type previousSecretModel struct {
	Hint                  types.String `tfsdk:"hint"`
	LastUsedAt            types.String `tfsdk:"last_used_at"`
	RequestsSinceRotation types.Int64  `tfsdk:"requests_since_rotation"`
	Clients               types.List   `tfsdk:"clients"`
	ExpiresAt             types.String `tfsdk:"expires_at"`
	RetireWhenIdleSeconds types.Int64  `tfsdk:"retire_when_idle_seconds"`
	InUseWarningAt        types.String `tfsdk:"in_use_warning_at"`
	RetiredAt             types.String `tfsdk:"retired_at"`
	RetiredReason         types.String `tfsdk:"retired_reason"`
}

// secretUseAttributes are the key's secret_use attributes, added to gatewaykeys_api_key's schema.
func secretUseAttributes() map[string]schema.Attribute {
	clients := schema.ListNestedAttribute{
		Computed:    true,
		Description: "The most recently seen distinct clients (up to 20), most recent first.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"user_agent":    schema.StringAttribute{Computed: true, Description: "The User-Agent it sent (cut to 200 characters), or null."},
			"address":       schema.StringAttribute{Computed: true, Description: "Its source address, as the gateway's trusted proxy reports it, or null."},
			"first_seen_at": schema.StringAttribute{Computed: true, Description: "When it first presented the secret."},
			"last_seen_at":  schema.StringAttribute{Computed: true, Description: "When it last presented the secret."},
			"requests":      schema.Int64Attribute{Computed: true, Description: "Requests it made with the secret."},
		}},
	}
	use := map[string]schema.Attribute{
		"hint":                    schema.StringAttribute{Computed: true, Description: "Prefix and last four characters of the secret."},
		"last_used_at":            schema.StringAttribute{Computed: true, Description: "When a request last authenticated with it, or null."},
		"requests_since_rotation": schema.Int64Attribute{Computed: true, Description: "Requests it authenticated since the key's last rotation (since its creation before any)."},
		"clients":                 clients,
	}
	previous := map[string]schema.Attribute{
		"expires_at":               schema.StringAttribute{Computed: true, Description: "The end of its grace: it never authenticates at or after this instant."},
		"retire_when_idle_seconds": schema.Int64Attribute{Computed: true, Description: "The rotation's retire_when_idle in seconds, or null."},
		"in_use_warning_at":        schema.StringAttribute{Computed: true, Description: "When key.previous_secret_in_use is due if it is still in use then, or null."},
		"retired_at":               schema.StringAttribute{Computed: true, Description: "When it stopped authenticating, or null while it still does."},
		"retired_reason":           schema.StringAttribute{Computed: true, Description: "Why it stopped: idle, expired, revoked or rotated (another rotation); null while it still authenticates."},
	}
	for name, attribute := range use {
		previous[name] = attribute
	}
	return map[string]schema.Attribute{
		"retire_when_idle": schema.StringAttribute{
			Optional: true,
			Description: `Ends the replaced secret early, as soon as it has gone unused this long after a rotation: "15m", "1h", "30s", from 5s to 7d ` +
				"(never later than the grace's end). Sent with each rotation as retireWhenIdleSeconds. Needs rotation_grace_period.",
			Validators: []validator.String{retireWhenIdleValidator, stringvalidator.AlsoRequires(path.MatchRoot("rotation_grace_period"))},
		},
		"in_use_warning": schema.StringAttribute{
			Optional: true,
			Description: "How long before the replaced secret's grace ends the gateway sends key.previous_secret_in_use if it is still in use, naming " +
				`its clients: "15m", shorter than rotation_grace_period (which it needs). Default: when a quarter of the grace is left.`,
			Validators: []validator.String{inUseWarningValidator, stringvalidator.AlsoRequires(path.MatchRoot("rotation_grace_period"))},
		},
		"current_secret": schema.SingleNestedAttribute{
			Computed:    true,
			Description: "How the current secret has been used, as of the last refresh: read-only, never a change. Null from a gateway without secret_use.",
			Attributes:  use,
		},
		"previous_secret": schema.SingleNestedAttribute{
			Computed: true,
			Description: "The secret the last rotation replaced, when it had a grace period: its grace, retirement, and use since the rotation " +
				"(clients with a recent last_seen_at have not moved to the new secret). Read-only; null otherwise.",
			Attributes: previous,
		},
	}
}

// graceSettingsProblems: retire_when_idle and in_use_warning mean nothing without a grace period
// (the replaced secret stops at once), and the warning must fall inside the grace.
func graceSettingsProblems(plan apiKeyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if plan.RotationGracePeriod.IsUnknown() {
		return diags
	}
	grace, _ := parseDuration(plan.RotationGracePeriod.ValueString())
	for _, setting := range []struct {
		name  string
		value types.String
	}{{"retire_when_idle", plan.RetireWhenIdle}, {"in_use_warning", plan.InUseWarning}} {
		if !setting.value.IsNull() && grace == 0 {
			diags.AddAttributeError(path.Root(setting.name), "Needs a grace period",
				fmt.Sprintf(`%s needs rotation_grace_period greater than 0 (e.g. "1h"): without a grace period the replaced secret stops at once when the key rotates. Set rotation_grace_period, or remove %s.`, setting.name, setting.name))
		}
	}
	if warning, ok := parseDuration(plan.InUseWarning.ValueString()); ok && !plan.InUseWarning.IsUnknown() && grace > 0 && warning >= grace {
		diags.AddAttributeError(path.Root("in_use_warning"), "Warning outside the grace period",
			fmt.Sprintf("in_use_warning must be shorter than rotation_grace_period (%s): it says how long before the grace ends the gateway warns that the old secret is still in use.", plan.RotationGracePeriod.ValueString()))
	}
	return diags
}

// rotateSettings adds the declared retire_when_idle and in_use_warning to a rotate body.
func rotateSettings(plan apiKeyModel, body *gatewayapi.RotateApiKeyRequest) {
	if seconds := secondsOf(plan.RetireWhenIdle); seconds != nil {
		body.RetireWhenIdleSeconds = seconds
	}
	if seconds := secondsOf(plan.InUseWarning); seconds != nil {
		body.InUseWarningSeconds = seconds
	}
}

// secretUseState reads a record's current_secret and previous_secret.
func secretUseState(ctx context.Context, record *gatewayapi.ApiKey) (types.Object, types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	current, previous := types.ObjectNull(secretUseTypes), types.ObjectNull(previousSecretTypes)
	if use, err := record.CurrentSecret.Get(); err == nil {
		clients := make([]secretClientModel, 0, len(use.Clients))
		for _, client := range use.Clients {
			clients = append(clients, clientModel(client.UserAgent, client.Address, client.FirstSeenAt, client.LastSeenAt, client.Requests))
		}
		list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: secretClientTypes}, clients)
		diags.Append(d...)
		value, d := types.ObjectValueFrom(ctx, secretUseTypes, secretUseModel{
			Hint: types.StringValue(use.Hint), LastUsedAt: nullableTime(use.LastUsedAt), RequestsSinceRotation: types.Int64Value(int64(use.RequestsSinceRotation)), Clients: list,
		})
		diags.Append(d...)
		current = value
	}
	if use, err := record.PreviousSecret.Get(); err == nil {
		clients := make([]secretClientModel, 0, len(use.Clients))
		for _, client := range use.Clients {
			clients = append(clients, clientModel(client.UserAgent, client.Address, client.FirstSeenAt, client.LastSeenAt, client.Requests))
		}
		list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: secretClientTypes}, clients)
		diags.Append(d...)
		reason := types.StringNull()
		if why, err := use.RetiredReason.Get(); err == nil && why != nil {
			reason = types.StringValue(*why)
		}
		idle := types.Int64Null()
		if seconds, err := use.RetireWhenIdleSeconds.Get(); err == nil {
			idle = types.Int64Value(int64(seconds))
		}
		value, d := types.ObjectValueFrom(ctx, previousSecretTypes, previousSecretModel{
			Hint: types.StringValue(use.Hint), LastUsedAt: nullableTime(use.LastUsedAt), RequestsSinceRotation: types.Int64Value(int64(use.RequestsSinceRotation)),
			Clients: list, ExpiresAt: types.StringValue(timeText(use.ExpiresAt)), RetireWhenIdleSeconds: idle,
			InUseWarningAt: nullableTime(use.InUseWarningAt), RetiredAt: nullableTime(use.RetiredAt), RetiredReason: reason,
		})
		diags.Append(d...)
		previous = value
	}
	return current, previous, diags
}

func clientModel(userAgent, address interface{ Get() (string, error) }, first, last time.Time, requests int) secretClientModel {
	return secretClientModel{
		UserAgent: nullableText(userAgent), Address: nullableText(address),
		FirstSeenAt: types.StringValue(timeText(first)), LastSeenAt: types.StringValue(timeText(last)), Requests: types.Int64Value(int64(requests)),
	}
}

func nullableText(value interface{ Get() (string, error) }) types.String {
	if text, err := value.Get(); err == nil {
		return types.StringValue(text)
	}
	return types.StringNull()
}

// previousSecretInUse is the contract's previousSecretInUse, the one rule for "still in use": the
// previous secret still authenticates (not retired, grace not over), a request presented it since
// the rotation, and the last one came within its idle window (retire_when_idle, else an hour).
func previousSecretInUse(previous previousSecretModel, now time.Time) bool {
	expires, err := time.Parse(time.RFC3339Nano, previous.ExpiresAt.ValueString())
	if err != nil || !previous.RetiredAt.IsNull() || !now.Before(expires) {
		return false
	}
	lastUsed, err := time.Parse(time.RFC3339Nano, previous.LastUsedAt.ValueString())
	if err != nil || previous.RequestsSinceRotation.ValueInt64() == 0 {
		return false
	}
	window := inUseWindow
	if !previous.RetireWhenIdleSeconds.IsNull() {
		window = time.Duration(previous.RetireWhenIdleSeconds.ValueInt64()) * time.Second
	}
	return now.Sub(lastUsed) < window
}

// cutOffWarning, for a plan that rotates the key: when the state (refreshed by the plan) shows its
// previous secret still in use, the warning that names who the rotation cuts off, else "".
func cutOffWarning(ctx context.Context, keyID string, prior apiKeyModel, now time.Time) (string, diag.Diagnostics) {
	if prior.PreviousSecret.IsNull() || prior.PreviousSecret.IsUnknown() {
		return "", nil
	}
	var previous previousSecretModel
	diags := prior.PreviousSecret.As(ctx, &previous, basetypes.ObjectAsOptions{})
	if diags.HasError() || !previousSecretInUse(previous, now) {
		return "", diags
	}
	var clients []secretClientModel
	diags.Append(previous.Clients.ElementsAs(ctx, &clients, false)...)
	named := []string{}
	for i, client := range clients {
		if i == clientsNamed {
			named = append(named, fmt.Sprintf("and %d more", len(clients)-clientsNamed))
			break
		}
		agent := "no User-Agent"
		if !client.UserAgent.IsNull() {
			agent = fmt.Sprintf("%q", client.UserAgent.ValueString())
		}
		address := "an unknown address"
		if !client.Address.IsNull() {
			address = client.Address.ValueString()
		}
		named = append(named, fmt.Sprintf("%s from %s (last seen %s, %d requests)", agent, address, client.LastSeenAt.ValueString(), client.Requests.ValueInt64()))
	}
	who := "by clients the gateway did not record"
	if len(named) > 0 {
		who = "by " + strings.Join(named, "; ")
	}
	return fmt.Sprintf("Key %s: this plan rotates the key while its previous secret (%s) is still in use: last used %s, %d requests since the last rotation, %s. "+
		"The rotation ends that secret at once (a key keeps one previous secret; its grace would have run to %s), and those clients get 401 invalid_credentials. "+
		"Move them to the current secret first (previous_secret shows when they stop), or let retire_when_idle end it once nobody uses it, then rotate.",
		keyID, previous.Hint.ValueString(), previous.LastUsedAt.ValueString(), previous.RequestsSinceRotation.ValueInt64(), who, previous.ExpiresAt.ValueString()), diags
}
