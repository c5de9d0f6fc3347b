package provider

import (
	"context"
	"fmt"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
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
	TeamID          types.String `tfsdk:"team_id"`
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

// keyAttributesRead are the resource's attributes the data source shows as they are: the same
// type, description and nested attributes, read-only (readOnly). The data source adds key_id (the
// one argument), its own state and client_reference (it sees revoked keys, and never sets a
// reference), and what only a read shows: last_used_at, spent_units.
var keyAttributesRead = []string{
	"name", "spend_policy", "logging_policy", "model_policy", "rate_limit_policy", "expires_at", "expired", "labels", "team_id",
	"version", "hint", "owner_id", "created_at", "rotated_at",
}

func (d *apiKeyDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = apiKeyDataSourceSchema()
}

// apiKeyDataSourceSchema is gatewaykeys_api_key's data source schema, built from the resource's.
func apiKeyDataSourceSchema() schema.Schema {
	computedString := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, Description: description}
	}
	attributes := map[string]schema.Attribute{
		"key_id":           schema.StringAttribute{Required: true, Description: "The key id (key_…)."},
		"state":            computedString(`"active", "disabled" or "revoked".`),
		"client_reference": computedString("The creator's reference for the key, or null."),
		"last_used_at":     computedString("When the key's last model request arrived, or null."),
		"spent_units":      computedString("Credits spent over the key's life."),
	}
	resource := apiKeyResourceSchema().Attributes
	for _, name := range keyAttributesRead {
		attributes[name] = readOnly(resource[name])
	}
	return schema.Schema{
		Description: "One API key of the owner, as the gateway has it now. The secret is never readable.",
		Attributes:  attributes,
	}
}

// readOnly is the data source's variant of one of the resource's attributes: the same type,
// description and nested attributes, computed, without the resource's validators, defaults and
// plan modifiers (a data source reads the gateway's value; it never plans one). An attribute kind
// the resource does not use yet panics, which the schema's unit test catches.
func readOnly(attribute resourceschema.Attribute) schema.Attribute {
	switch a := attribute.(type) {
	case resourceschema.StringAttribute:
		return schema.StringAttribute{Computed: true, Sensitive: a.Sensitive, Description: a.Description}
	case resourceschema.BoolAttribute:
		return schema.BoolAttribute{Computed: true, Sensitive: a.Sensitive, Description: a.Description}
	case resourceschema.Int64Attribute:
		return schema.Int64Attribute{Computed: true, Sensitive: a.Sensitive, Description: a.Description}
	case resourceschema.MapAttribute:
		return schema.MapAttribute{Computed: true, Sensitive: a.Sensitive, ElementType: a.ElementType, Description: a.Description}
	case resourceschema.ListAttribute:
		return schema.ListAttribute{Computed: true, Sensitive: a.Sensitive, ElementType: a.ElementType, Description: a.Description}
	case resourceschema.SingleNestedAttribute:
		nested := make(map[string]schema.Attribute, len(a.Attributes))
		for name, inner := range a.Attributes {
			nested[name] = readOnly(inner)
		}
		return schema.SingleNestedAttribute{Computed: true, Sensitive: a.Sensitive, Description: a.Description, Attributes: nested}
	case resourceschema.ListNestedAttribute:
		nested := make(map[string]schema.Attribute, len(a.NestedObject.Attributes))
		for name, inner := range a.NestedObject.Attributes {
			nested[name] = readOnly(inner)
		}
		return schema.ListNestedAttribute{Computed: true, Sensitive: a.Sensitive, Description: a.Description, NestedObject: schema.NestedAttributeObject{Attributes: nested}}
	}
	panic(fmt.Sprintf("readOnly: no data source variant of a resource attribute of type %T", attribute))
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
		ExpiresAt: key.ExpiresAt, Expired: key.Expired, Labels: key.Labels, TeamID: key.TeamID, ClientReference: key.ClientReference,
		Version: key.Version, Hint: key.Hint, OwnerID: key.OwnerID, CreatedAt: key.CreatedAt, RotatedAt: key.RotatedAt,
		LastUsedAt: nullableTime(record.LastUsedAt), SpentUnits: types.StringValue(unitsText(record.SpentUnits)),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
