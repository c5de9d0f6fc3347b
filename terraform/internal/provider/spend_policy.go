package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// resetPeriods are the contract's reset periods, in the one order several windows are kept in.
var resetPeriods = []string{"never", "daily", "weekly", "monthly"}

// spendWindowsMax is how many windows one spend policy may hold (contract SPEND_WINDOWS_MAX).
const spendWindowsMax = 4

// The attribute types of a spend policy (of a key or a team): one window, or several in windows.
var (
	spendWindowTypes = map[string]attr.Type{"limit_units": types.StringType, "reset_period": types.StringType}
	spendPolicyTypes = map[string]attr.Type{
		"limit_units": types.StringType, "currency": types.StringType, "reset_period": types.StringType,
		"windows": types.ListType{ElemType: types.ObjectType{AttrTypes: spendWindowTypes}},
	}
)

type spendPolicyModel struct {
	LimitUnits  types.String `tfsdk:"limit_units"`
	Currency    types.String `tfsdk:"currency"`
	ResetPeriod types.String `tfsdk:"reset_period"`
	Windows     types.List   `tfsdk:"windows"`
}

type spendWindowModel struct {
	LimitUnits  types.String `tfsdk:"limit_units"`
	ResetPeriod types.String `tfsdk:"reset_period"`
}

// spendPolicyAttribute is spend_policy of a key (owner "key") or a team (owner "team").
func spendPolicyAttribute(owner string) schema.SingleNestedAttribute {
	units := []validator.String{stringvalidator.RegexMatches(limitUnitsPattern, `must be a decimal string such as "100" or "12.5" (at most 12 integer and 6 fraction digits, no sign or exponent)`), positiveUnits{}}
	return schema.SingleNestedAttribute{
		Optional:    true,
		Validators:  []validator.Object{oneSpendForm{}},
		Description: fmt.Sprintf("Spending cap in credits: one window (limit_units, reset_period) or several (windows). Left out, the %s has no cap.", owner),
		Attributes: map[string]schema.Attribute{
			"limit_units": schema.StringAttribute{
				Optional:    true,
				Description: `Maximum spend, in credits, as a decimal string: greater than 0, at most 12 integer and 6 fraction digits ("100", "12.5"). Leave it out with windows.`,
				Validators:  units,
			},
			"currency": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("unit"),
				Description: `The credit unit: only "unit".`, Validators: []validator.String{stringvalidator.OneOf("unit")},
			},
			"reset_period": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("never"),
				Description: `When the limit starts again: "never" (a lifetime cap, the default), "daily" (00:00 UTC), "weekly" (Monday 00:00 UTC) or "monthly" (the 1st, 00:00 UTC). Leave it out with windows.`,
				Validators:  []validator.String{stringvalidator.OneOf(resetPeriods...)},
			},
			"windows": schema.ListNestedAttribute{
				Optional: true,
				Description: "Several windows enforced together instead of limit_units and reset_period: 1 to 4, each a distinct reset_period, " +
					`e.g. [{ limit_units = "50", reset_period = "daily" }, { limit_units = "1000", reset_period = "monthly" }].`,
				Validators: []validator.List{listvalidator.SizeBetween(1, spendWindowsMax)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"limit_units": schema.StringAttribute{Required: true, Description: "Maximum spend in the window, in credits, as a decimal string.", Validators: units},
					"reset_period": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString("never"),
						Description: `When the window starts again: "never", "daily", "weekly" or "monthly". Default "never".`,
						Validators:  []validator.String{stringvalidator.OneOf(resetPeriods...)},
					},
				}},
			},
		},
	}
}

// oneSpendForm: a spend policy is one window (limit_units) or several (windows), never both, each window its own reset period.
type oneSpendForm struct{}

func (oneSpendForm) Description(context.Context) string {
	return "either limit_units (one window) or windows (several), and windows of distinct reset_period"
}
func (v oneSpendForm) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v oneSpendForm) ValidateObject(ctx context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	limit, _ := req.ConfigValue.Attributes()["limit_units"].(types.String)
	period, _ := req.ConfigValue.Attributes()["reset_period"].(types.String)
	windows, _ := req.ConfigValue.Attributes()["windows"].(types.List)
	if limit.IsUnknown() || windows.IsUnknown() {
		return
	}
	switch {
	case limit.IsNull() && windows.IsNull():
		resp.Diagnostics.AddAttributeError(req.Path.AtName("limit_units"), "Invalid spend policy",
			req.Path.String()+` sets no limit: set limit_units (e.g. "100"), or windows for several windows.`)
	case !limit.IsNull() && !windows.IsNull():
		resp.Diagnostics.AddAttributeError(req.Path.AtName("limit_units"), "Invalid spend policy",
			req.Path.String()+".limit_units must not be set beside windows: give each window its own limit_units and reset_period.")
	case !windows.IsNull() && !period.IsNull() && !period.IsUnknown() && period.ValueString() != "never":
		resp.Diagnostics.AddAttributeError(req.Path.AtName("reset_period"), "Invalid spend policy",
			req.Path.String()+".reset_period must not be set beside windows (but to its default, \"never\"): give each window its own reset_period.")
	case !windows.IsNull():
		seen := map[string]bool{}
		for i, element := range windows.Elements() {
			window, _ := element.(types.Object)
			text, _ := window.Attributes()["reset_period"].(types.String)
			if text.IsUnknown() {
				continue
			}
			name := text.ValueString()
			if text.IsNull() {
				name = "never"
			}
			if seen[name] {
				resp.Diagnostics.AddAttributeError(req.Path.AtName("windows").AtListIndex(i).AtName("reset_period"), "Invalid spend policy",
					fmt.Sprintf("%s.windows[%d].reset_period must differ between windows: %q is repeated.", req.Path, i, name))
			}
			seen[name] = true
		}
	}
}

// declaredSpendPolicy reads a spend_policy of a plan or state in the contract's one form: the
// single form for one window (written either way), the windows form, ordered, for several.
func declaredSpendPolicy(ctx context.Context, value types.Object) (*account.SpendPolicy, diag.Diagnostics) {
	var diags diag.Diagnostics
	if value.IsNull() || value.IsUnknown() {
		return nil, diags
	}
	var spend spendPolicyModel
	diags.Append(value.As(ctx, &spend, basetypes.ObjectAsOptions{})...)
	policy := &account.SpendPolicy{Currency: spend.Currency.ValueString()}
	if policy.Currency == "" {
		policy.Currency = "unit"
	}
	if spend.Windows.IsNull() || spend.Windows.IsUnknown() {
		policy.LimitUnits, policy.ResetPeriod = spend.LimitUnits.ValueString(), spend.ResetPeriod.ValueString()
		if policy.ResetPeriod == "" {
			policy.ResetPeriod = "never"
		}
		return policy, diags
	}
	var windows []spendWindowModel
	diags.Append(spend.Windows.ElementsAs(ctx, &windows, false)...)
	for _, window := range windows {
		period := window.ResetPeriod.ValueString()
		if period == "" {
			period = "never"
		}
		policy.Windows = append(policy.Windows, account.SpendWindow{LimitUnits: window.LimitUnits.ValueString(), ResetPeriod: period})
	}
	return normalSpendPolicy(policy), diags
}

// normalSpendPolicy is a spend policy as the gateway keeps it: one window in the single form,
// several in the windows form ordered never, daily, weekly, monthly.
func normalSpendPolicy(policy *account.SpendPolicy) *account.SpendPolicy {
	if policy == nil {
		return nil
	}
	windows := spendWindowsOf(policy)
	if len(windows) == 1 {
		return &account.SpendPolicy{LimitUnits: windows[0].LimitUnits, Currency: policy.Currency, ResetPeriod: windows[0].ResetPeriod}
	}
	return &account.SpendPolicy{Currency: policy.Currency, Windows: windows}
}

// spendWindowsOf lists a spend policy's windows, whichever its form, in their one order.
func spendWindowsOf(policy *account.SpendPolicy) []account.SpendWindow {
	if policy == nil {
		return nil
	}
	windows := append([]account.SpendWindow{}, policy.Windows...)
	if len(policy.Windows) == 0 && policy.LimitUnits != "" {
		period := policy.ResetPeriod
		if period == "" {
			period = "never"
		}
		windows = []account.SpendWindow{{LimitUnits: policy.LimitUnits, ResetPeriod: period}}
	}
	rank := func(period string) int {
		for i, known := range resetPeriods {
			if known == period {
				return i
			}
		}
		return len(resetPeriods)
	}
	sort.SliceStable(windows, func(i, j int) bool { return rank(windows[i].ResetPeriod) < rank(windows[j].ResetPeriod) })
	return windows
}

// sameSpendPolicy: the same windows (an amount in two spellings being one), the same currency.
func sameSpendPolicy(a, b *account.SpendPolicy) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	windowsA, windowsB := spendWindowsOf(a), spendWindowsOf(b)
	if len(windowsA) != len(windowsB) || a.Currency != b.Currency {
		return false
	}
	for i := range windowsA {
		if windowsA[i].ResetPeriod != windowsB[i].ResetPeriod || !sameUnits(windowsA[i].LimitUnits, windowsB[i].LimitUnits) {
			return false
		}
	}
	return true
}

// spendPolicyRequest is a spend policy as a request carries it: a lifetime cap's reset period left
// out (the gateway's default, so a gateway from before reset periods takes it too).
func spendPolicyRequest(policy *account.SpendPolicy) *account.SpendPolicy {
	request := *policy
	if request.ResetPeriod == "never" {
		request.ResetPeriod = ""
	}
	return &request
}

// recordSpendPolicy reads a record's spend policy (any JSON form of it: the generated client's union, a map...).
func recordSpendPolicy(value any) (*account.SpendPolicy, error) {
	text, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	if string(text) == "null" {
		return nil, nil
	}
	var wire struct {
		LimitUnits  any    `json:"limitUnits"`
		Currency    string `json:"currency"`
		ResetPeriod string `json:"resetPeriod"`
		Windows     []struct {
			LimitUnits  any    `json:"limitUnits"`
			ResetPeriod string `json:"resetPeriod"`
		} `json:"windows"`
	}
	if err := json.Unmarshal(text, &wire); err != nil {
		return nil, fmt.Errorf("a spend policy the provider cannot read: %w", err)
	}
	policy := &account.SpendPolicy{Currency: wire.Currency, ResetPeriod: wire.ResetPeriod}
	if wire.LimitUnits != nil {
		policy.LimitUnits = unitsText(wire.LimitUnits)
	}
	for _, window := range wire.Windows {
		period := window.ResetPeriod
		if period == "" {
			period = "never"
		}
		policy.Windows = append(policy.Windows, account.SpendWindow{LimitUnits: unitsText(window.LimitUnits), ResetPeriod: period})
	}
	if len(policy.Windows) == 0 && policy.ResetPeriod == "" {
		policy.ResetPeriod = "never"
	}
	return policy, nil
}

// spendPolicyValue is the state's spend_policy for the gateway's policy. While it means what the
// prior value (the configuration) says, the prior's spelling is kept: an amount written "100.0",
// one window written as windows; so reading a policy back never shows a change.
func spendPolicyValue(ctx context.Context, policy *account.SpendPolicy, prior types.Object) (types.Object, diag.Diagnostics) {
	if policy == nil {
		return types.ObjectNull(spendPolicyTypes), nil
	}
	if !prior.IsNull() && !prior.IsUnknown() {
		declared, diags := declaredSpendPolicy(ctx, prior)
		if !diags.HasError() && sameSpendPolicy(declared, policy) {
			return prior, nil
		}
	}
	var diags diag.Diagnostics
	model := spendPolicyModel{
		// With windows, reset_period holds its default: what a plan holds for it, so no change shows.
		LimitUnits: types.StringNull(), Currency: types.StringValue(policy.Currency), ResetPeriod: types.StringValue("never"),
		Windows: types.ListNull(types.ObjectType{AttrTypes: spendWindowTypes}),
	}
	if len(policy.Windows) == 0 {
		model.LimitUnits, model.ResetPeriod = types.StringValue(policy.LimitUnits), types.StringValue(policy.ResetPeriod)
	} else {
		windows := make([]spendWindowModel, 0, len(policy.Windows))
		for _, window := range spendWindowsOf(policy) {
			windows = append(windows, spendWindowModel{LimitUnits: types.StringValue(window.LimitUnits), ResetPeriod: types.StringValue(window.ResetPeriod)})
		}
		list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: spendWindowTypes}, windows)
		diags.Append(d...)
		model.Windows = list
	}
	value, d := types.ObjectValueFrom(ctx, spendPolicyTypes, model)
	diags.Append(d...)
	return value, diags
}
