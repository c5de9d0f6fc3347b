// Command terraform-provider-gatewaykeys is the Terraform and OpenTofu provider of gateway API
// keys: resource gatewaykeys_api_key, data sources gatewaykeys_api_key and gatewaykeys_models.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

// version is set at release (scripts/release.ts: -ldflags "-X main.version=…").
var version = "dev"

func main() {
	debug := flag.Bool("debug", false, "run with support for debuggers such as delve")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   *debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
