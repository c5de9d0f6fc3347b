package provider

import (
	"context"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// modelsDataSource is gatewaykeys_models: the models the gateway serves, to build a key's
// model_policy allow list from (e.g. every chat model).
type modelsDataSource struct{ client *account.Client }

func newModelsDataSource() datasource.DataSource { return &modelsDataSource{} }

type modelsDataModel struct {
	Family types.String `tfsdk:"family"`
	IDs    types.List   `tfsdk:"ids"`
	Models []modelData  `tfsdk:"models"`
}

type modelData struct {
	ID              types.String `tfsdk:"id"`
	Family          types.String `tfsdk:"family"`
	Description     types.String `tfsdk:"description"`
	OwnedBy         types.String `tfsdk:"owned_by"`
	MaxOutputTokens types.Int64  `tfsdk:"max_output_tokens"`
}

func (d *modelsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_models"
}

func (d *modelsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if client, ok := req.ProviderData.(*account.Client); ok {
		d.client = client
	}
}

func (d *modelsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The models the gateway serves (GET /v1/models).",
		Attributes: map[string]schema.Attribute{
			"family": schema.StringAttribute{Optional: true, Description: "Only models of this family: chat, embeddings, images, moderation, speech or transcription."},
			"ids":    schema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "The ids of the models listed, in the gateway's order."},
			"models": schema.ListNestedAttribute{
				Computed: true, Description: "The models listed.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":                schema.StringAttribute{Computed: true},
					"family":            schema.StringAttribute{Computed: true},
					"description":       schema.StringAttribute{Computed: true},
					"owned_by":          schema.StringAttribute{Computed: true},
					"max_output_tokens": schema.Int64Attribute{Computed: true},
				}},
			},
		},
	}
}

func (d *modelsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config modelsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if !requireClient(d.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	models, err := d.client.Models(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Could not list the gateway's models", err.Error())
		return
	}
	config.Models = []modelData{}
	ids := []string{}
	for _, model := range models {
		if !config.Family.IsNull() && string(model.Family) != config.Family.ValueString() {
			continue
		}
		ids = append(ids, model.Id)
		config.Models = append(config.Models, modelData{
			ID: types.StringValue(model.Id), Family: types.StringValue(string(model.Family)), Description: types.StringValue(model.Description),
			OwnedBy: types.StringValue(model.OwnedBy), MaxOutputTokens: types.Int64Value(int64(model.MaxOutputTokens)),
		})
	}
	list, diags := types.ListValueFrom(ctx, types.StringType, ids)
	resp.Diagnostics.Append(diags...)
	config.IDs = list
	resp.Diagnostics.Append(resp.State.Set(ctx, config)...)
}
