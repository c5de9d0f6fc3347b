package provider

import (
	"errors"
	"fmt"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
)

// Errors and warnings worded for the person running tofu or terraform: what happened to which
// key, and the commands that resolve it. Never a secret: the client's errors quote none.

// describeFailure rewords a failed call on one key.
func describeFailure(keyID, action string, err error, stateVersion int64) (summary, detail string) {
	var apiErr *account.APIError
	var unreachable *account.ConnectionError
	switch {
	case account.Is(err, "conflict"):
		now := "a newer version"
		if errors.As(err, &apiErr) && apiErr.CurrentVersion > 0 {
			now = fmt.Sprintf("version %d", apiErr.CurrentVersion)
		}
		return "Key changed outside Terraform", fmt.Sprintf(
			"Key %s changed outside Terraform: the state has version %d, the gateway has %s. Nothing was overwritten. "+
				"Run `tofu plan` (or `terraform plan`), which refreshes the key and shows what changed, review it, then run `tofu %s` again.",
			keyID, stateVersion, now, retryCommand(action))
	case account.Is(err, "key_revoked"):
		return "Key revoked outside Terraform", fmt.Sprintf(
			"Key %s was revoked outside Terraform and can never be used again. Run `tofu apply -refresh-only` (the key leaves the state), then `tofu apply` to create a new one.", keyID)
	case account.Is(err, "invalid_credentials"):
		return "Provisioning key refused", "The gateway refused the provisioning key (invalid_credentials): set provisioning_key in the provider block, or GATEWAY_PROVISIONING_KEY, to a valid provisioning key."
	case account.Is(err, "missing_scope"):
		return "Provisioning key lacks a scope", "The provisioning key lacks a scope this needs (missing_scope): use one with keys:read and keys:write."
	case errors.As(err, &unreachable):
		return fmt.Sprintf("Could not %s key %s", action, keyID), unreachable.Error() + ". Check that the gateway is running and that base_url is right, then run the command again."
	}
	return fmt.Sprintf("Could not %s key %s", action, keyID), err.Error()
}

func retryCommand(action string) string {
	if action == "revoke" {
		return "destroy"
	}
	return "apply"
}

// createFailure says that a create with no answer needs no clean-up: the next apply finds the key.
func createFailure(name string, err error) (summary, detail string) {
	var unreachable *account.ConnectionError
	if errors.As(err, &unreachable) {
		return fmt.Sprintf("Could not create key %q", name), unreachable.Error() + ". If the gateway made the key before the failure, " +
			"the next `tofu apply` finds it by its client_reference and takes it over instead of making a second one: there is nothing to clean up."
	}
	var apiErr *account.APIError
	if errors.As(err, &apiErr) && apiErr.Code == "validation_failed" && apiErr.Param != "" {
		return fmt.Sprintf("Invalid key %q", name), fmt.Sprintf("The gateway refused %s: %s", apiErr.Param, apiErr.Message)
	}
	return describeFailure(fmt.Sprintf("%q", name), "create", err, 0)
}

// tookOverWarning says a create found the key an interrupted apply made for this resource.
func tookOverWarning(name, keyID, reference string, rotated bool) string {
	secret := "recovered its secret from the gateway's stored answer"
	if rotated {
		secret = "rotated its secret, which never reached the state"
	}
	return fmt.Sprintf("An earlier apply was interrupted after the gateway created key %s (client_reference %q) for key %q; "+
		"this apply took that key over and %s. No second key was made. If another resource uses the same client_reference, give each its own.",
		keyID, reference, name, secret)
}

// rotatedOutsideWarning says the state's secret no longer works.
func rotatedOutsideWarning(keyID string) string {
	return fmt.Sprintf("Key %s was rotated outside Terraform: the secret in the state is the one Terraform issued, and the gateway "+
		"no longer accepts it (secret_known is false). To issue a working secret, change rotation_trigger and run `tofu apply`.", keyID)
}

// wrongOwner says the configured credentials belong to another owner than the key's.
func wrongOwner(keyID, keyOwner, credentialOwner string) (summary, detail string) {
	return "Provisioning key of another owner", fmt.Sprintf(
		"Key %s belongs to owner %s, but the configured provisioning key belongs to owner %s; nothing was changed. "+
			"Configure owner %s's provisioning key to manage this key.", keyID, keyOwner, credentialOwner, keyOwner)
}
