package provider

import (
	"context"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// apiKeyDataSource is gatewaykeys_api_key: one key as the gateway has it, by id, for keys another
// configuration (or nobody) manages. Never a secret: the gateway shows it only once.
type apiKeyDataSource struct{ client *account.Client }

func newAPIKeyDataSource() datasource.DataSource { return &apiKeyDataSource{} }

type apiKeyDataModel struct {
	KeyID           types.String `tfsdk:"key_id"`
	Name            types.String `tfsdk:"name"`
	State           types.String `tfsdk:"state"`
	SpendPolicy     types.Object `tfsdk:"spend_policy"`
	LoggingPolicy   types.Object `tfsdk:"logging_policy"`
	ModelPolicy     types.Object `tfsdk:"model_policy"`
	RateLimitPolicy types.Object `tfsdk:"rate_limit_policy"`
	ExpiresAt       types.String `tfsdk:"expires_at"`
	Expired         types.Bool   `tfsdk:"expired"`
	Labels          types.Map    `tfsdk:"labels"`
	ClientReference types.String `tfsdk:"client_reference"`
	Version         types.Int64  `tfsdk:"version"`
	Hint            types.String `tfsdk:"hint"`
	OwnerID         types.String `tfsdk:"owner_id"`
	CreatedAt       types.String `tfsdk:"created_at"`
	RotatedAt       types.String `tfsdk:"rotated_at"`
	LastUsedAt      types.String `tfsdk:"last_used_at"`
	SpentUnits      types.String `tfsdk:"spent_units"`
}

func (d *apiKeyDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_api_key"
}

func (d *apiKeyDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if client, ok := req.ProviderData.(*account.Client); ok {
		d.client = client
	}
}

func computedObject(description string, attributes map[string]schema.Attribute) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Computed: true, Description: description, Attributes: attributes}
}

func (d *apiKeyDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computedString := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, Description: description}
	}
	resp.Schema = schema.Schema{
		Description: "One API key of the owner, as the gateway has it now. The secret is never readable.",
		Attributes: map[string]schema.Attribute{
			"key_id": schema.StringAttribute{Required: true, Description: "The key id (key_…)."},
			"name":   computedString("Human-readable label."),
			"state":  computedString(`"active", "disabled" or "revoked".`),
			"spend_policy": computedObject("Spending cap, or null.", map[string]schema.Attribute{
				"limit_units": computedString("Maximum spend in credits."), "currency": computedString("The credit unit."),
				"reset_period": computedString("never, daily, weekly or monthly."),
			}),
			"logging_policy": computedObject("What the gateway stores about requests.", map[string]schema.Attribute{
				"store_request": schema.BoolAttribute{Computed: true}, "store_response": schema.BoolAttribute{Computed: true},
				"retention_days": schema.Int64Attribute{Computed: true},
			}),
			"model_policy": computedObject("Which models the key may call.", map[string]schema.Attribute{
				"mode": computedString("all or allowList."), "model_ids": schema.ListAttribute{Computed: true, ElementType: types.StringType},
			}),
			"rate_limit_policy": computedObject("Rate limits, or null.", map[string]schema.Attribute{
				"requests_per_minute": schema.Int64Attribute{Computed: true}, "tokens_per_minute": schema.Int64Attribute{Computed: true},
				"max_concurrent_requests": schema.Int64Attribute{Computed: true},
			}),
			"expires_at":       computedString("When the key stops authenticating, or null."),
			"expired":          schema.BoolAttribute{Computed: true, Description: "Whether expires_at has passed."},
			"labels":           schema.MapAttribute{Computed: true, ElementType: types.StringType, Description: "The key's labels."},
			"client_reference": computedString("The creator's reference for the key, or null."),
			"version":          schema.Int64Attribute{Computed: true, Description: "The key's version."},
			"hint":             computedString("Prefix and last four characters of the current secret."),
			"owner_id":         computedString("The owner."),
			"created_at":       computedString("When the key was created."),
			"rotated_at":       computedString("When the secret was last rotated, or null."),
			"last_used_at":     computedString("When the key's last model request arrived, or null."),
			"spent_units":      computedString("Credits spent over the key's life."),
		},
	}
}

func (d *apiKeyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config apiKeyDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if !requireClient(d.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	keyID := config.KeyID.ValueString()
	record, err := d.client.Get(ctx, keyID)
	if err != nil {
		summary, detail := describeFailure(keyID, "read", err, 0)
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	// The resource's reading of a record, with an empty prior: one reading of keys for both.
	key, diags := stateOf(ctx, record, apiKeyModel{})
	resp.Diagnostics.Append(diags...)
	state := apiKeyDataModel{
		KeyID: key.KeyID, Name: key.Name, State: types.StringValue(string(record.State)),
		SpendPolicy: key.SpendPolicy, LoggingPolicy: key.LoggingPolicy, ModelPolicy: key.ModelPolicy, RateLimitPolicy: key.RateLimitPolicy,
		ExpiresAt: key.ExpiresAt, Expired: key.Expired, Labels: key.Labels, ClientReference: key.ClientReference,
		Version: key.Version, Hint: key.Hint, OwnerID: key.OwnerID, CreatedAt: key.CreatedAt, RotatedAt: key.RotatedAt,
		LastUsedAt: nullableTime(record.LastUsedAt), SpentUnits: types.StringValue(unitsText(record.SpentUnits)),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
