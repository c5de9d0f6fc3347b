package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// webhookURLMaxLength is the contract's bound on an endpoint's URL (contract/src/webhooks.ts).
const webhookURLMaxLength = 2048

// webhookEventTypes are the event types an endpoint may name, as the account API's OpenAPI
// document lists them (TestWebhookEventTypesAreTheOpenAPIDocuments keeps the two the same).
var webhookEventTypes = []string{
	"key.budget_threshold", "key.expiring", "key.expired", "key.rotation_due", "key.previous_secret_in_use", "key.previous_secret_retired", "team.budget_threshold",
	"audit.create", "audit.update", "audit.rotate", "audit.revoke", "audit.previous_secret_in_use", "audit.previous_secret_retired", "audit.console_sign_in",
	"audit.webhook_create", "audit.webhook_update", "audit.webhook_rotate_secret", "audit.webhook_delete", "audit.team_create", "audit.team_update", "audit.team_delete",
}

func (r *webhookResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = webhookResourceSchema()
}

// webhookResourceSchema is gatewaykeys_webhook's schema: what the configuration declares (the
// account API's create request), the signing secret, and what the gateway says of the endpoint.
func webhookResourceSchema() schema.Schema {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	return schema.Schema{
		Description: "A webhook endpoint of the gateway: the events it names (key alerts, audit actions) are POSTed to url, signed as Standard " +
			"Webhooks with the endpoint's secret. url, events, label_selector and enabled change in place (one PATCH); a new rotation_trigger " +
			"rotates the signing secret in place; destroy deletes the endpoint.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "The endpoint id (wh_…).", PlanModifiers: keep},
			"url": schema.StringAttribute{
				Required: true,
				Description: "Where events are POSTed: an http:// or https:// URL of at most 2048 characters, without user or password. " +
					"The gateway refuses loopback, link-local and private targets at delivery unless its operator allows them.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, webhookURLMaxLength), webhookURLValidator{}},
			},
			"events": schema.ListAttribute{
				ElementType: types.StringType, Required: true,
				Description: "The event types to receive, at least one, no repeats: key.budget_threshold, key.expiring, key.expired, key.rotation_due, key.previous_secret_in_use, key.previous_secret_retired, team.budget_threshold, " +
					"and audit.<action> for each audit action (audit.create, audit.update, audit.rotate, audit.revoke, …).",
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), listvalidator.ValueStringsAre(stringvalidator.OneOf(webhookEventTypes...)),
				},
			},
			"label_selector": schema.MapAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				Default:     mapdefault.StaticValue(types.MapValueMust(types.StringType, map[string]attr.Value{})),
				Description: "Receive only events about keys carrying every one of these labels with these values. Empty (the default): every key, and events about no key.",
				Validators: []validator.Map{
					mapvalidator.SizeAtMost(32),
					mapvalidator.KeysAre(stringvalidator.RegexMatches(labelNamePattern, "must be 1 to 63 lowercase letters, digits, '.', '_', '/' or '-', starting with a letter or digit")),
				},
			},
			"enabled": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				Description: "Whether deliveries are made. Default true.",
			},
			"rotation_trigger": schema.StringAttribute{
				Optional:    true,
				Description: "Any value; changing it (adding or removing it too) rotates the signing secret in place at the next apply; the old one keeps signing beside it for rotation_overlap.",
			},
			"rotation_overlap": schema.StringAttribute{
				Optional:    true,
				Description: `How long the replaced signing secret keeps signing after a rotation: "1h", "30m", up to "7d". Default: the gateway's, a day.`,
				Validators:  []validator.String{gracePeriodValidator},
			},
			"signing_secret": schema.StringAttribute{
				Computed: true, Sensitive: true,
				Description: "The signing secret (whsec_…) receivers verify deliveries with, set on create and on each rotation (the gateway shows it once). " +
					"Null for an imported endpoint until rotation_trigger rotates it. Stored in state as a sensitive value: encrypt the state.",
			},
			"signing_secret_known": schema.BoolAttribute{
				Computed: true, Description: "Whether signing_secret is the endpoint's current secret: false after an import, or a rotation outside Terraform.",
			},
			"secret_hint": schema.StringAttribute{Computed: true, Description: "whsec_ and the last four characters of the current signing secret."},
			"version": schema.Int64Attribute{
				Computed: true, Description: "The endpoint's version; every change and rotation moves it on. Sent back as expectedVersion, so a change made outside Terraform is never overwritten.",
			},
			"owner_id":                   schema.StringAttribute{Computed: true, Description: "The owner the endpoint belongs to.", PlanModifiers: keep},
			"created_at":                 schema.StringAttribute{Computed: true, Description: "When the endpoint was created.", PlanModifiers: keep},
			"previous_secret_expires_at": schema.StringAttribute{Computed: true, Description: "Until when the signing secret the last rotation replaced also signs deliveries, if it does or did."},
		},
	}
}
