package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// spendWindowNowTypes are the attribute types of one of a team's spend_windows (read-only).
var spendWindowNowTypes = map[string]attr.Type{
	"limit_units": types.StringType, "reset_period": types.StringType, "spent_units": types.StringType,
	"started_at": types.StringType, "resets_at": types.StringType,
}

func (r *teamResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = teamResourceSchema()
}

// teamResourceSchema is gatewaykeys_team's schema: what the configuration declares (the account
// API's create request) and what the gateway says of the team.
func teamResourceSchema() schema.Schema {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	model := modelPolicyAttribute()
	model.Description = "The model ceiling: a key in the team calls only models the team allows (and its own policy allows). Default: all."
	rate := rateLimitPolicyAttribute()
	rate.Description = "Rate limits of all the team's keys together, across every gateway process (429 team_rate_limited with Retry-After beyond them); at least one. Left out, none."
	return schema.Schema{
		Description: "A team of the gateway: a spend policy (one window or several), rate limits and a model ceiling shared by every key whose team_id " +
			"names it, enforced together with each key's own. Every change, the name's too, is one in-place PATCH; destroy deletes the team, " +
			"which the gateway refuses while keys belong to it.",
		Attributes: map[string]schema.Attribute{
			"id":      schema.StringAttribute{Computed: true, Description: "The team id (team_…), as team_id.", PlanModifiers: keep},
			"team_id": schema.StringAttribute{Computed: true, Description: "The team id (team_…): give it to a key as team_id.", PlanModifiers: keep},
			"name": schema.StringAttribute{
				Required: true, Description: "Human-readable label: 1 to 128 characters, no control characters. A change is an in-place update.",
				Validators: []validator.String{stringvalidator.UTF8LengthBetween(1, 128), stringvalidator.RegexMatches(noControlChars, "must not contain control characters")},
			},
			"labels": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				Description: "Labels to find and bill teams by: up to 32 names (lowercase letters, digits, ._/-, starting with a letter or digit, at most 63 characters) to strings of up to 256 characters.",
				Validators: []validator.Map{
					mapvalidator.SizeAtMost(32),
					mapvalidator.KeysAre(stringvalidator.RegexMatches(labelNamePattern, "must be 1 to 63 lowercase letters, digits, '.', '_', '/' or '-', starting with a letter or digit")),
					mapvalidator.ValueStringsAre(stringvalidator.UTF8LengthAtMost(256), stringvalidator.RegexMatches(noControlChars, "must not contain control characters")),
				},
			},
			"spend_policy":      spendPolicyAttribute("team"),
			"rate_limit_policy": rate,
			"model_policy":      model,
			"budget_alert_thresholds": schema.ListAttribute{
				ElementType: types.Float64Type, Optional: true,
				Description: "Fractions of each spend window's limit at which the gateway sends a team.budget_threshold webhook event, once per window each: " +
					"greater than 0, at most 1, ascending, up to 10, e.g. [0.8, 1]. Left out: none.",
				Validators: []validator.List{listvalidator.SizeAtMost(10)},
			},
			"version": schema.Int64Attribute{
				Computed: true, Description: "The team's version; every change moves it on. Sent back as expectedVersion, so a change made outside Terraform is never overwritten.",
			},
			"owner_id":   schema.StringAttribute{Computed: true, Description: "The owner the team belongs to.", PlanModifiers: keep},
			"created_at": schema.StringAttribute{Computed: true, Description: "When the team was created.", PlanModifiers: keep},
			"key_count":  schema.Int64Attribute{Computed: true, Description: "How many keys belong to the team, as of the last apply or refresh."},
			"spend_windows": schema.ListNestedAttribute{
				Computed:    true,
				Description: "Each spend window with what the team's keys spent in it, as of the last apply or refresh (read-only).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"limit_units":  schema.StringAttribute{Computed: true, Description: "The window's limit, in credits."},
					"reset_period": schema.StringAttribute{Computed: true, Description: "never, daily, weekly or monthly."},
					"spent_units":  schema.StringAttribute{Computed: true, Description: "What the team's keys spent in the window, in credits."},
					"started_at":   schema.StringAttribute{Computed: true, Description: "When the window began."},
					"resets_at":    schema.StringAttribute{Computed: true, Description: "When the window starts again; null for a lifetime cap."},
				}},
			},
		},
	}
}
