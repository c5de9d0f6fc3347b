// Package provider is the gatewaykeys provider: its configuration, the gatewaykeys_api_key and
// gatewaykeys_webhook resources and the data sources, over the account API client of package account.
package provider

import (
	"context"
	"os"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Address is where configurations find the provider: `source = "gateway-keys/gatewaykeys"` on
// OpenTofu's registry host (Terraform users' mirrors put it under registry.terraform.io).
const Address = "registry.opentofu.org/gateway-keys/gatewaykeys"

// Environment variables the provider block falls back to, as the Pulumi provider's are.
const (
	BaseURLVariable         = "GATEWAY_BASE_URL"
	ProvisioningKeyVariable = "GATEWAY_PROVISIONING_KEY"
)

// requestTimeout bounds each call to the gateway (retries included in the retry policy's own waits).
const requestTimeout = 30 * time.Second

// New returns the provider factory the plugin server uses: the system clock.
func New(version string) func() provider.Provider {
	return NewWithClock(version, time.Now)
}

// NewWithClock is New with the clock rotate_after is measured against, so tests move time
// instead of sleeping (the acceptance tests pass their own). Nothing reads a clock from the environment.
func NewWithClock(version string, now func() time.Time) func() provider.Provider {
	return func() provider.Provider { return &gatewayKeysProvider{version: version, now: now} }
}

type gatewayKeysProvider struct {
	version string
	// now is the clock of scheduled rotation: when a secret was issued and whether it is due.
	now func() time.Time
}

type providerModel struct {
	BaseURL         types.String `tfsdk:"base_url"`
	ProvisioningKey types.String `tfsdk:"provisioning_key"`
}

func (p *gatewayKeysProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gatewaykeys"
	resp.Version = p.version
}

func (p *gatewayKeysProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Manages a model gateway's API keys through its account API, with one owner's provisioning key.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				Optional:    true,
				Description: "Base URL of the gateway, e.g. http://127.0.0.1:8787. Default: the GATEWAY_BASE_URL environment variable.",
			},
			"provisioning_key": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "Provisioning key (gwp_…) of the owner whose keys this provider manages, with keys:read and keys:write. Default: the GATEWAY_PROVISIONING_KEY environment variable.",
			},
		},
	}
}

func (p *gatewayKeysProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var config providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if config.BaseURL.IsUnknown() || config.ProvisioningKey.IsUnknown() {
		// Known only after another resource applies: each call then says so (requireClient).
		return
	}
	baseURL := settingOf(config.BaseURL, BaseURLVariable)
	provisioningKey := settingOf(config.ProvisioningKey, ProvisioningKeyVariable)
	if baseURL == "" {
		resp.Diagnostics.AddAttributeError(path.Root("base_url"), "No gateway configured",
			"Set base_url in the provider \"gatewaykeys\" block, or the "+BaseURLVariable+" environment variable, to the gateway's base URL (e.g. http://127.0.0.1:8787).")
	}
	if provisioningKey == "" {
		resp.Diagnostics.AddAttributeError(path.Root("provisioning_key"), "No provisioning key configured",
			"Set provisioning_key in the provider \"gatewaykeys\" block (from a sensitive variable), or the "+ProvisioningKeyVariable+" environment variable, to the owner's provisioning key (gwp_…).")
	}
	if resp.Diagnostics.HasError() {
		return
	}
	client, err := account.New(baseURL, provisioningKey, "terraform-provider-gatewaykeys/"+p.version, requestTimeout)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Invalid base_url", err.Error())
		return
	}
	resp.ResourceData = client
	resp.DataSourceData = client
}

func (p *gatewayKeysProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return newAPIKeyResource(p.now) }, newWebhookResource, newTeamResource}
}

func (p *gatewayKeysProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newAPIKeyDataSource, newModelsDataSource}
}

// settingOf is the configured value, else the environment variable's.
func settingOf(value types.String, variable string) string {
	if !value.IsNull() && value.ValueString() != "" {
		return value.ValueString()
	}
	return os.Getenv(variable)
}
