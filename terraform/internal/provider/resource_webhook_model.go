package provider

import (
	"context"
	"fmt"
	"net/url"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// webhookModel is gatewaykeys_webhook's state and plan.
type webhookModel struct {
	ID                      types.String `tfsdk:"id"`
	URL                     types.String `tfsdk:"url"`
	Events                  types.List   `tfsdk:"events"`
	LabelSelector           types.Map    `tfsdk:"label_selector"`
	Enabled                 types.Bool   `tfsdk:"enabled"`
	RotationTrigger         types.String `tfsdk:"rotation_trigger"`
	RotationOverlap         types.String `tfsdk:"rotation_overlap"`
	SigningSecret           types.String `tfsdk:"signing_secret"`
	SigningSecretKnown      types.Bool   `tfsdk:"signing_secret_known"`
	SecretHint              types.String `tfsdk:"secret_hint"`
	Version                 types.Int64  `tfsdk:"version"`
	OwnerID                 types.String `tfsdk:"owner_id"`
	CreatedAt               types.String `tfsdk:"created_at"`
	PreviousSecretExpiresAt types.String `tfsdk:"previous_secret_expires_at"`
}

// webhookFields are the fields of an endpoint a PATCH can change, in the account API's form: what
// a configuration declares and what the gateway has are compared in this one form.
type webhookFields struct {
	URL           string
	Events        []string
	LabelSelector map[string]string
	Enabled       bool
}

// The changeable fields by their account API names, in the order a plan lists them.
var webhookChangeableFields = []string{"url", "events", "labelSelector", "enabled"}

// declaredWebhook reads the changeable fields of a plan or state. Call it only when they are known.
func declaredWebhook(ctx context.Context, m webhookModel) (webhookFields, diag.Diagnostics) {
	var diags diag.Diagnostics
	fields := webhookFields{URL: m.URL.ValueString(), Enabled: m.Enabled.ValueBool(), Events: []string{}, LabelSelector: map[string]string{}}
	diags.Append(m.Events.ElementsAs(ctx, &fields.Events, false)...)
	if !m.LabelSelector.IsNull() {
		diags.Append(m.LabelSelector.ElementsAs(ctx, &fields.LabelSelector, false)...)
	}
	return fields, diags
}

// webhookRecordFields reads the changeable fields of an endpoint record.
func webhookRecordFields(record *gatewayapi.Webhook) webhookFields {
	fields := webhookFields{URL: record.Url, Enabled: record.Enabled, Events: []string{}, LabelSelector: record.LabelSelector}
	for _, event := range record.Events {
		fields.Events = append(fields.Events, unionText(event))
	}
	if fields.LabelSelector == nil {
		fields.LabelSelector = map[string]string{}
	}
	return fields
}

// changedWebhookFields names the fields whose declared value differs from the endpoint's.
func changedWebhookFields(declared, current webhookFields) []string {
	differs := map[string]bool{
		"url":           declared.URL != current.URL,
		"events":        !sameJSON(declared.Events, current.Events),
		"labelSelector": !sameJSON(declared.LabelSelector, current.LabelSelector),
		"enabled":       declared.Enabled != current.Enabled,
	}
	var changed []string
	for _, field := range webhookChangeableFields {
		if differs[field] {
			changed = append(changed, field)
		}
	}
	return changed
}

func webhookCreateRequest(fields webhookFields) gatewayapi.CreateWebhookRequest {
	events := make([]gatewayapi.CreateWebhookRequestEvents, len(fields.Events))
	for i, event := range fields.Events {
		events[i] = gatewayapi.CreateWebhookRequestEvents(event)
	}
	return gatewayapi.CreateWebhookRequest{Url: fields.URL, Events: events, LabelSelector: &fields.LabelSelector, Enabled: &fields.Enabled}
}

// webhookChangeRequest is the PATCH that brings an endpoint at version to the declared fields it names.
func webhookChangeRequest(version int64, fields webhookFields, changed []string) gatewayapi.UpdateWebhookRequest {
	body := gatewayapi.UpdateWebhookRequest{ExpectedVersion: int(version)}
	for _, field := range changed {
		switch field {
		case "url":
			body.Url = &fields.URL
		case "events":
			events := make([]gatewayapi.UpdateWebhookRequestEvents, len(fields.Events))
			for i, event := range fields.Events {
				events[i] = gatewayapi.UpdateWebhookRequestEvents(event)
			}
			body.Events = &events
		case "labelSelector":
			body.LabelSelector = &fields.LabelSelector
		case "enabled":
			body.Enabled = &fields.Enabled
		}
	}
	return body
}

// webhookStateOf is the resource's state for an endpoint record; what only the state holds (the
// secret, the rotation settings) comes from prior.
func webhookStateOf(ctx context.Context, record *gatewayapi.Webhook, prior webhookModel) (webhookModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	fields := webhookRecordFields(record)
	next := prior
	next.ID = types.StringValue(record.WebhookId)
	next.URL = types.StringValue(fields.URL)
	events, d := types.ListValueFrom(ctx, types.StringType, fields.Events)
	diags.Append(d...)
	next.Events = events
	selector, d := types.MapValueFrom(ctx, types.StringType, fields.LabelSelector)
	diags.Append(d...)
	next.LabelSelector = selector
	next.Enabled = types.BoolValue(fields.Enabled)
	next.SecretHint = types.StringValue(record.SecretHint)
	next.Version = types.Int64Value(int64(record.Version))
	next.OwnerID = types.StringValue(record.OwnerId)
	next.CreatedAt = types.StringValue(timeText(record.CreatedAt))
	next.PreviousSecretExpiresAt = nullableTime(record.PreviousSecretExpiresAt)
	if next.SigningSecret.IsUnknown() {
		next.SigningSecret = types.StringNull()
	}
	if next.SigningSecretKnown.IsUnknown() || next.SigningSecretKnown.IsNull() {
		next.SigningSecretKnown = types.BoolValue(false)
	}
	return next, diags
}

// webhookURLValidator accepts an http:// or https:// URL without user or password, as the contract does.
type webhookURLValidator struct{}

func (webhookURLValidator) Description(context.Context) string {
	return "an http:// or https:// URL without user or password"
}
func (v webhookURLValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v webhookURLValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	parsed, err := url.Parse(req.ConfigValue.ValueString())
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" || parsed.User != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid webhook URL", fmt.Sprintf("%s must be %s.", req.Path, v.Description(ctx)))
	}
}
