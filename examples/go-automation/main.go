// Command go-automation manages one gateway API key from Go: the native gatewaykeys plugin through
// its generated Go SDK (provider/sdk/go/gatewaykeys) and Pulumi's Automation API. The program is
// inline (auto.UpsertStackInlineSource), so it needs no Go language host, only the Pulumi CLI on
// PATH and the gatewaykeys plugin installed.
//
// It runs the whole life of the key: up (creates it), preview (expects no changes), refresh
// (expects no changes), destroy (revokes it), then removes the stack.
//
// Environment:
//
//	GATEWAY_BASE_URL          the gateway, e.g. http://127.0.0.1:8787
//	GATEWAY_PROVISIONING_KEY  the owner's provisioning key (gwp_...)
//	PULUMI_BACKEND_URL        where the stack's state goes, e.g. file://$HOME/.pulumi-state
//	PULUMI_CONFIG_PASSPHRASE  encrypts the stack's secrets (the passphrase secrets provider)
//	GATEWAY_KEYS_STACK        the stack's name (default: dev)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"example.com/gateway-keys/sdk/go/gatewaykeys"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const projectName = "gatewaykeys-go-automation"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "go-automation:", err)
		os.Exit(1)
	}
}

// gateway is where the key lives and whose provisioning key manages it.
type gateway struct {
	baseURL         string
	provisioningKey string
}

func run(ctx context.Context, out io.Writer) error {
	gw, err := gatewayFromEnv()
	if err != nil {
		return err
	}
	for _, name := range []string{"PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE"} {
		if os.Getenv(name) == "" {
			return fmt.Errorf("%s is not set: the stack's state and secrets need it (see the package comment)", name)
		}
	}
	stackName := os.Getenv("GATEWAY_KEYS_STACK")
	if stackName == "" {
		stackName = "dev"
	}

	stack, err := auto.UpsertStackInlineSource(ctx, stackName, projectName, keyProgram(gw), auto.SecretsProvider("passphrase"))
	if err != nil {
		return fmt.Errorf("stack %s: %w", stackName, err)
	}

	fmt.Fprintln(out, "== up")
	up, err := stack.Up(ctx, optup.ProgressStreams(out))
	if err != nil {
		return fmt.Errorf("up: %w", err)
	}
	keyID, ok := up.Outputs["keyId"].Value.(string)
	if !ok || keyID == "" {
		return errors.New("up: no keyId output")
	}
	if secret := up.Outputs["secret"]; !secret.Secret || secret.Value == nil {
		return errors.New("up: the secret output is missing or not a Pulumi secret")
	}
	fmt.Fprintf(out, "created key %s (its secret is a secret output: pulumi stack output secret --show-secrets)\n", keyID)

	fmt.Fprintln(out, "== preview (expecting no changes)")
	if _, err := stack.Preview(ctx, optpreview.ExpectNoChanges(), optpreview.ProgressStreams(out)); err != nil {
		return fmt.Errorf("preview: %w", err)
	}

	fmt.Fprintln(out, "== refresh (expecting no changes)")
	if _, err := stack.Refresh(ctx, optrefresh.ExpectNoChanges(), optrefresh.ProgressStreams(out)); err != nil {
		return fmt.Errorf("refresh: %w", err)
	}

	fmt.Fprintln(out, "== destroy")
	if _, err := stack.Destroy(ctx, optdestroy.ProgressStreams(out)); err != nil {
		return fmt.Errorf("destroy: %w", err)
	}
	fmt.Fprintf(out, "revoked key %s\n", keyID)

	if err := stack.Workspace().RemoveStack(ctx, stackName); err != nil {
		return fmt.Errorf("removing stack %s: %w", stackName, err)
	}
	return nil
}

// gatewayFromEnv reads the gateway and provisioning key, then takes them out of this process's
// environment: the Pulumi CLI and the plugin inherit it, and the plugin falls back to these very
// variables, so removing them proves that the explicit provider below is what configures it.
func gatewayFromEnv() (gateway, error) {
	gw := gateway{baseURL: os.Getenv("GATEWAY_BASE_URL"), provisioningKey: os.Getenv("GATEWAY_PROVISIONING_KEY")}
	if gw.baseURL == "" {
		return gw, errors.New("GATEWAY_BASE_URL is not set: the gateway's base URL, e.g. http://127.0.0.1:8787")
	}
	if gw.provisioningKey == "" {
		return gw, errors.New("GATEWAY_PROVISIONING_KEY is not set: the owner's provisioning key (gwp_...)")
	}
	for _, name := range []string{"GATEWAY_BASE_URL", "GATEWAY_PROVISIONING_KEY", "GATEWAY_REQUEST_TIMEOUT"} {
		if err := os.Unsetenv(name); err != nil {
			return gw, err
		}
	}
	return gw, nil
}

// keyProgram is the Pulumi program: an explicit gatewaykeys provider for the gateway, and one key
// with a spend cap and an allow-list of models through it.
func keyProgram(gw gateway) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		provider, err := gatewaykeys.NewProvider(ctx, "gateway", &gatewaykeys.ProviderArgs{
			BaseUrl:         pulumi.String(gw.baseURL),
			ProvisioningKey: pulumi.String(gw.provisioningKey), // the SDK marks it secret
		})
		if err != nil {
			return err
		}
		key, err := gatewaykeys.NewApiKey(ctx, "ci", &gatewaykeys.ApiKeyArgs{
			SpendPolicy: gatewaykeys.SpendPolicyArgs{LimitUnits: pulumi.String("100")},
			ModelPolicy: gatewaykeys.ModelPolicyArgs{
				Mode:     pulumi.String("allowList"),
				ModelIds: pulumi.StringArray{pulumi.String("echo-1")},
			},
		}, pulumi.Provider(provider))
		if err != nil {
			return err
		}
		ctx.Export("keyId", key.KeyId)
		ctx.Export("hint", key.Hint)
		ctx.Export("secret", key.Secret)
		return nil
	}
}
