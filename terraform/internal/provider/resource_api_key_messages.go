package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Errors and warnings worded for the person running tofu or terraform: what happened to which
// key, and the commands that resolve it. Never a secret: the client's errors quote none.

// describeFailure rewords a failed call on one key.
func describeFailure(keyID, action string, err error, stateVersion int64) (summary, detail string) {
	if account.Is(err, "key_revoked") {
		return "Key revoked outside Terraform", fmt.Sprintf(
			"Key %s was revoked outside Terraform and can never be used again. Run `tofu apply -refresh-only` (the key leaves the state), then `tofu apply` to create a new one.", keyID)
	}
	return describeResourceFailure("key", keyID, action, err, stateVersion)
}

// describeResourceFailure rewords a failed call on one resource of the account API ("key",
// "webhook"): a stale version, refused credentials, no answer; anything else as the gateway said it.
func describeResourceFailure(noun, id, action string, err error, stateVersion int64) (summary, detail string) {
	var apiErr *account.APIError
	var unreachable *account.ConnectionError
	title := strings.ToUpper(noun[:1]) + noun[1:]
	switch {
	case account.Is(err, "conflict"):
		now := "a newer version"
		if errors.As(err, &apiErr) && apiErr.CurrentVersion > 0 {
			now = fmt.Sprintf("version %d", apiErr.CurrentVersion)
		}
		return title + " changed outside Terraform", fmt.Sprintf(
			"%s %s changed outside Terraform: the state has version %d, the gateway has %s. Nothing was overwritten. "+
				"Run `tofu plan` (or `terraform plan`), which refreshes the %s and shows what changed, review it, then run `tofu %s` again.",
			title, id, stateVersion, now, noun, retryCommand(action))
	case account.Is(err, "invalid_credentials"):
		return "Provisioning key refused", "The gateway refused the provisioning key (invalid_credentials): set provisioning_key in the provider block, or GATEWAY_PROVISIONING_KEY, to a valid provisioning key."
	case account.Is(err, "missing_scope"):
		return "Provisioning key lacks a scope", "The provisioning key lacks a scope this needs (missing_scope): use one with keys:read and keys:write."
	case errors.As(err, &unreachable):
		return fmt.Sprintf("Could not %s %s %s", action, noun, id), unreachable.Error() + ". Check that the gateway is running and that base_url is right, then run the command again."
	}
	return fmt.Sprintf("Could not %s %s %s", action, noun, id), err.Error()
}

func retryCommand(action string) string {
	if action == "revoke" || action == "delete" {
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
		"this apply took that key over and %s. No second key was made.", keyID, reference, name, secret)
}

// referenceInUse stops a create that found a live key with the default, name-derived reference.
func referenceInUse(name, keyID, reference string) (summary, detail string) {
	return "A key with this client_reference exists", fmt.Sprintf(
		"Key %s already carries client_reference %q, so no key %q was made. Either an earlier apply was interrupted after the gateway "+
			"created it for this resource, or another configuration (another workspace, a module used twice) declares a key named %q "+
			"on this owner. If it is this resource's: `tofu import <this resource's address> %s`, then `tofu apply` "+
			"(change rotation_trigger to get a secret the state knows). If it is another configuration's: give this resource a "+
			"client_reference of its own. With client_reference set in the configuration, an interrupted create is taken over automatically.",
		keyID, reference, name, name, keyID)
}

// rotatedOutsideWarning says the state's secret no longer works.
func rotatedOutsideWarning(keyID string) string {
	return fmt.Sprintf("Key %s was rotated outside Terraform: the secret in the state is the one Terraform issued, and the gateway "+
		"no longer accepts it (secret_known is false). To issue a working secret, change rotation_trigger and run `tofu apply`.", keyID)
}

// wrongOwner says the configured credentials belong to another owner than the key's.
func wrongOwner(noun, id, owner, credentialOwner string) (summary, detail string) {
	return "Provisioning key of another owner", fmt.Sprintf(
		"%s %s belongs to owner %s, but the configured provisioning key belongs to owner %s; nothing was changed. "+
			"Configure owner %s's provisioning key to manage this %s.", strings.ToUpper(noun[:1])+noun[1:], id, owner, credentialOwner, owner, noun)
}

// ownerUnknown says a 404 cannot be trusted: the gateway cannot say whose credentials these are.
func ownerUnknown(noun, id string) (summary, detail string) {
	return fmt.Sprintf("Cannot tell whether the %s is gone", noun), fmt.Sprintf(
		"%s %s is not visible to the configured provisioning key, and this gateway cannot say whose %s that is (no whoami): "+
			"the %s may be gone, or belong to another owner. Nothing was changed. Configure the provisioning key of the %s's owner and run the command again.",
		strings.ToUpper(noun[:1])+noun[1:], id, noun, noun, noun)
}

// describeRotateFailure is describeFailure, with the one rotation-only refusal said in Terraform terms.
func describeRotateFailure(keyID string, err error, stateVersion int64) (summary, detail string) {
	var apiErr *account.APIError
	if errors.As(err, &apiErr) && apiErr.Code == "validation_failed" && apiErr.Param == "gracePeriodSeconds" {
		return "Gateway cannot rotate with a grace period", fmt.Sprintf(
			"Key %s: the gateway cannot rotate with a grace period (it lacks the rotation_grace extension), so the rotation was not made. "+
				"Remove rotation_grace_period (the old secret then stops at once) and apply again.", keyID)
	}
	return describeFailure(keyID, "rotate", err, stateVersion)
}

// attributeNames names changed fields as the configuration does (spend_policy, not spendPolicy).
func attributeNames(fields []string) string {
	names := map[string]string{
		fieldName: "name", fieldState: "state", fieldSpendPolicy: "spend_policy", fieldTeamID: "team_id", fieldLoggingPolicy: "logging_policy",
		fieldModelPolicy: "model_policy", fieldRateLimitPolicy: "rate_limit_policy", fieldExpiresAt: "expires_at", fieldLabels: "labels",
		fieldBudgetAlertThresholds: "budget_alert_thresholds", fieldExpiryWarningSeconds: "expiry_warning", fieldRotateAfterSeconds: "rotate_after",
	}
	out := make([]string, len(fields))
	for i, field := range fields {
		out[i] = names[field]
	}
	return strings.Join(out, ", ")
}

// requireClient reports an unconfigured provider (settings known only after apply) instead of
// failing on a missing client.
func requireClient(client *account.Client, diags *diag.Diagnostics) bool {
	if client != nil {
		return true
	}
	diags.AddError("Provider not configured",
		`The gatewaykeys provider's base_url or provisioning_key is not known yet (it comes from a resource not yet applied). `+
			"Apply that resource first (`tofu apply -target=<it>`), or give the provider values known at plan time.")
	return false
}
