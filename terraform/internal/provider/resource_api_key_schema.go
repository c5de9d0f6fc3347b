package provider

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Bounds of the contract (contract/src/policies.ts, docs/api/policies.md#key-policies), checked at plan
// time so a bad value is named before anything is sent; the gateway checks them again.
var (
	limitUnitsPattern = regexp.MustCompile(`^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$`)
	labelNamePattern  = regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]{0,62}$`)
	noControlChars    = regexp.MustCompile(`^[^\x00-\x1f\x7f-\x9f]*$`)
	teamIDPattern     = regexp.MustCompile(`^team_[A-Za-z0-9]{1,60}$`)
)

// The attribute types of the nested policies, shared by the resource's state and its defaults.
var (
	loggingPolicyTypes = map[string]attr.Type{"store_request": types.BoolType, "store_response": types.BoolType, "retention_days": types.Int64Type}
	modelPolicyTypes   = map[string]attr.Type{"mode": types.StringType, "model_ids": types.ListType{ElemType: types.StringType}}
	rateLimitTypes     = map[string]attr.Type{"requests_per_minute": types.Int64Type, "tokens_per_minute": types.Int64Type, "max_concurrent_requests": types.Int64Type}
)

// The contract's defaults for a key that declares no logging or model policy.
var (
	defaultLoggingPolicy = types.ObjectValueMust(loggingPolicyTypes, map[string]attr.Value{
		"store_request": types.BoolValue(false), "store_response": types.BoolValue(false), "retention_days": types.Int64Value(30),
	})
	defaultModelPolicy = types.ObjectValueMust(modelPolicyTypes, map[string]attr.Value{
		"mode": types.StringValue("all"), "model_ids": types.ListValueMust(types.StringType, []attr.Value{}),
	})
)

func (r *apiKeyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = apiKeyResourceSchema()
}

// apiKeyResourceSchema is gatewaykeys_api_key's schema. The data source gatewaykeys_api_key reads
// its attributes of the same name from it (readOnly), so the two describe a key alike.
func apiKeyResourceSchema() schema.Schema {
	key := apiKeySchemaBase()
	for name, attribute := range alertAttributes() {
		key.Attributes[name] = attribute
	}
	for name, attribute := range secretUseAttributes() {
		key.Attributes[name] = attribute
	}
	return key
}

// apiKeySchemaBase is the key's schema but its alert attributes (resource_api_key_alerts.go).
func apiKeySchemaBase() schema.Schema {
	return schema.Schema{
		Description: "An API key of the gateway, managed in place: name, state and policies change with one PATCH; the secret " +
			"rotates in place (rotation_trigger, rotate_after) with an optional grace period; destroy revokes the key.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, Description: "The key id (key_…), as key_id.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"key_id": schema.StringAttribute{
				Computed: true, Description: "The key id (key_…): the gateway's name for the key, stable across rotations.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true, Description: "Human-readable label: 1 to 128 characters, no control characters.",
				Validators: []validator.String{stringvalidator.UTF8LengthBetween(1, 128), stringvalidator.RegexMatches(noControlChars, "must not contain control characters")},
			},
			"state": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("active"),
				Description: `"active" or "disabled". Default "active". A key is revoked only by destroying the resource.`,
				Validators:  []validator.String{stringvalidator.OneOf("active", "disabled")},
			},
			"spend_policy":      spendPolicyAttribute("key"),
			"logging_policy":    loggingPolicyAttribute(),
			"model_policy":      modelPolicyAttribute(),
			"rate_limit_policy": rateLimitPolicyAttribute(),
			"expires_at": schema.StringAttribute{
				Optional:    true,
				Description: "When the key stops authenticating (401 key_expired): an RFC 3339 date and time with a zone, in the future when set. The same instant in another zone is no change. Left out, the key never expires.",
				Validators:  []validator.String{instantValidator{}},
			},
			"labels": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				Description: "Labels to find, group and bill keys by: up to 32 names (lowercase letters, digits, ._/-, starting with a letter or digit, at most 63 characters) to strings of up to 256 characters.",
				Validators: []validator.Map{
					mapvalidator.SizeAtMost(32),
					mapvalidator.KeysAre(stringvalidator.RegexMatches(labelNamePattern, "must be 1 to 63 lowercase letters, digits, '.', '_', '/' or '-', starting with a letter or digit")),
					mapvalidator.ValueStringsAre(stringvalidator.UTF8LengthAtMost(256), stringvalidator.RegexMatches(noControlChars, "must not contain control characters")),
				},
			},
			"team_id": schema.StringAttribute{
				Optional: true,
				Description: "The team the key belongs to (team_…, e.g. gatewaykeys_team.search.team_id): its spend, rate limits and model ceiling hold for the key " +
					"too. A change moves the key in place (one PATCH); what it spent stays counted where it was spent. Left out, no team.",
				Validators: []validator.String{stringvalidator.RegexMatches(teamIDPattern, "must be a team id: team_ and 1 to 60 letters or digits")},
			},
			"rotation_trigger": schema.StringAttribute{
				Optional:    true,
				Description: "Any value; changing it (adding or removing it too) rotates the secret in place at the next apply: the key id stays, the old secret stops at once or after rotation_grace_period. E.g. a date or a counter.",
			},
			"rotate_after": schema.StringAttribute{
				Optional:    true,
				Description: `Rotates the secret once it is older than this: "30d", "12h" or "90m", from 1h to 3650d, counted from secret_issued_at (the create or the last rotation; for an imported key, rotated_at, else created_at). A due rotation shows in the plan and happens at the next apply, once per due date.`,
				Validators:  []validator.String{rotateAfterValidator},
			},
			"rotation_grace_period": schema.StringAttribute{
				Optional:    true,
				Description: `How long the replaced secret keeps working after a rotation, so consumers move to the new one with no request refused: "1h", "30m", "45s", up to "7d". Default: none, the old secret stops at once.`,
				Validators:  []validator.String{gracePeriodValidator},
			},
			"client_reference": schema.StringAttribute{
				Optional: true, Computed: true,
				Description: "The key's reference on the gateway, unique among the owner's live keys: a create whose answer was lost is found by it on the next apply instead of made twice. " +
					`Default "terraform:<name>". Give each resource that shares a name with another on the same owner its own. Read only at create: changing it later changes no key.`,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 512), stringvalidator.RegexMatches(regexp.MustCompile(`^[\x20-\x7e]+$`), "must be visible ASCII characters or spaces")},
			},
			"version": schema.Int64Attribute{
				Computed: true, Description: "The key's version; every change, rotation and revocation moves it on. Sent back as expectedVersion, so a change made outside Terraform is never overwritten.",
			},
			"secret": schema.StringAttribute{
				Computed: true, Sensitive: true,
				Description: "The key's secret, set on create and on each rotation (the gateway shows it once). Null for an imported key until it is rotated. Stored in state as a sensitive value: encrypt the state.",
			},
			"secret_known": schema.BoolAttribute{
				Computed: true, Description: "Whether secret is the one the gateway accepts now: false after an import, or once the key was rotated outside Terraform (change rotation_trigger to issue one).",
			},
			"hint":                       schema.StringAttribute{Computed: true, Description: "Prefix and last four characters of the current secret."},
			"owner_id":                   schema.StringAttribute{Computed: true, Description: "The owner the key belongs to.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"created_at":                 schema.StringAttribute{Computed: true, Description: "When the key was created.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"rotated_at":                 schema.StringAttribute{Computed: true, Description: "When the secret was last rotated, or null."},
			"previous_secret_expires_at": schema.StringAttribute{Computed: true, Description: "Until when the secret replaced by the last rotation keeps working (it may be past), or null."},
			"expired":                    schema.BoolAttribute{Computed: true, Description: "Whether expires_at has passed (the key is refused until expires_at is extended)."},
			"secret_issued_at": schema.StringAttribute{
				Computed: true, Description: "When the apply that created or last rotated the key issued its secret: where rotate_after counts from. Null for an imported key (rotate_after then counts from rotated_at, else created_at).",
			},
		},
	}
}

func loggingPolicyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultLoggingPolicy),
		Description: "What the gateway stores about requests made with the key. Default: nothing, log rows kept 30 days.",
		Attributes: map[string]schema.Attribute{
			"store_request":  schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false), Description: "Store request content. Default false."},
			"store_response": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false), Description: "Store response content. Default false."},
			"retention_days": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(30),
				Description: "Days to keep request logs: 1 to 365. Default 30.", Validators: []validator.Int64{int64validator.Between(1, 365)},
			},
		},
	}
}

func modelPolicyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultModelPolicy),
		Validators:  []validator.Object{modelIDsFitMode{}},
		Description: "Which models the key may call. Default: all.",
		Attributes: map[string]schema.Attribute{
			"mode": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("all"),
				Description: `"all" (every model) or "allowList" (only model_ids). Default "all".`,
				Validators:  []validator.String{stringvalidator.OneOf("all", "allowList")},
			},
			"model_ids": schema.ListAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				Default:     listdefault.StaticValue(types.ListValueMust(types.StringType, []attr.Value{})),
				Description: `Model ids: empty with "all", 1 to 100 distinct ids with "allowList".`,
				Validators:  []validator.List{listvalidator.SizeAtMost(100), listvalidator.UniqueValues(), listvalidator.ValueStringsAre(stringvalidator.UTF8LengthBetween(1, 128))},
			},
		},
	}
}

func rateLimitPolicyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:    true,
		Validators:  []validator.Object{atLeastOneLimit{}},
		Description: "Rate limits (429 with Retry-After beyond them), across every process of the gateway; at least one. Left out, the key has none.",
		Attributes: map[string]schema.Attribute{
			"requests_per_minute": schema.Int64Attribute{
				Optional: true, Description: "Requests per minute (a bucket that holds a minute's worth and refills continuously): 1 to 1,000,000.",
				Validators: []validator.Int64{int64validator.Between(1, 1_000_000)},
			},
			"tokens_per_minute": schema.Int64Attribute{
				Optional: true, Description: "Tokens per minute, counted as the spend policy counts them: 1 to 10,000,000,000.",
				Validators: []validator.Int64{int64validator.Between(1, 10_000_000_000)},
			},
			"max_concurrent_requests": schema.Int64Attribute{
				Optional: true, Description: "Requests in flight at once: 1 to 10,000.",
				Validators: []validator.Int64{int64validator.Between(1, 10_000)},
			},
		},
	}
}

// atLeastOneLimit refuses a rate_limit_policy that sets no limit: leaving the policy out says "none".
type atLeastOneLimit struct{}

func (atLeastOneLimit) Description(context.Context) string {
	return "at least one of requests_per_minute, tokens_per_minute, max_concurrent_requests"
}
func (v atLeastOneLimit) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v atLeastOneLimit) ValidateObject(ctx context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, limit := range req.ConfigValue.Attributes() {
		if !limit.IsNull() {
			return
		}
	}
	resp.Diagnostics.AddAttributeError(req.Path, "No rate limit set",
		req.Path.String()+" sets no limit: expected "+v.Description(ctx)+" (leave rate_limit_policy out for no rate limit).")
}

// modelIDsFitMode: "all" takes no model ids, "allowList" at least one (the contract's rule).
type modelIDsFitMode struct{}

func (modelIDsFitMode) Description(context.Context) string {
	return `model_ids must be empty with mode "all" and name at least one model with mode "allowList"`
}
func (v modelIDsFitMode) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v modelIDsFitMode) ValidateObject(ctx context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	mode, _ := req.ConfigValue.Attributes()["mode"].(types.String)
	ids, _ := req.ConfigValue.Attributes()["model_ids"].(types.List)
	if mode.IsUnknown() || ids.IsUnknown() {
		return
	}
	count := len(ids.Elements())
	if (mode.IsNull() || mode.ValueString() == "all") && count > 0 {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("model_ids"), "Invalid model policy", `model_policy.model_ids must be empty when mode is "all" (set mode = "allowList" to allow only these models).`)
	}
	if mode.ValueString() == "allowList" && (ids.IsNull() || count == 0) {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("model_ids"), "Invalid model policy", `model_policy.model_ids must name at least one model when mode is "allowList".`)
	}
}
