package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const (
	webhookAddress  = "gatewaykeys_webhook.alerts"
	alertKeyAddress = "gatewaykeys_api_key.alerted"
)

// alertsConfig declares a key with budget thresholds and an expiry warning, and a webhook endpoint
// for its alerts; the parts a step changes filled in.
func alertsConfig(thresholds, warning, events, enabled, extra string) string {
	return fmt.Sprintf(`
resource "gatewaykeys_api_key" "alerted" {
  name                    = "acc-alerted"
  spend_policy            = { limit_units = "100", reset_period = "monthly" }
  labels                  = { team = "search" }
  expires_at              = "2099-01-01T00:00:00Z"
  rotate_after            = "30d"
  budget_alert_thresholds = %s
  expiry_warning          = %q
}

resource "gatewaykeys_webhook" "alerts" {
  url            = "http://127.0.0.1:9/hooks/gateway"
  events         = %s
  label_selector = { team = "search" }
  enabled        = %s
%s
}
`, thresholds, warning, events, enabled, extra)
}

// A webhook endpoint and a key's alert fields through tofu: create (the signing secret sensitive,
// the key's alerts and rotation age on the gateway), a change of both in place, a rotation of the
// signing secret in place, import of the endpoint followed by an empty plan, destroy deletes it.
func TestAccWebhookAndKeyAlerts(t *testing.T) {
	requireEnvironment(t)
	var webhookID, keyID, firstSecret, rotatedSecret string
	sameWebhook := knownvalue.StringFunc(func(value string) error {
		if value != webhookID {
			return fmt.Errorf("id is %s, want the created endpoint %s (in place, never replaced)", value, webhookID)
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkRevoked(&keyID), func(*terraform.State) error {
			if _, err := gateway(t).GetWebhook(context.Background(), webhookID); !account.Is(err, "webhook_not_found") {
				return fmt.Errorf("destroy left webhook %s (read: %v); want it deleted", webhookID, err)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: alertsConfig("[0.5, 0.8, 1]", "7d", `["key.budget_threshold", "key.expiring", "audit.rotate"]`, "true", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(webhookAddress, plancheck.ResourceActionCreate),
					plancheck.ExpectSensitiveValue(webhookAddress, tfjsonpath.New("signing_secret")),
					plancheck.ExpectKnownValue(alertKeyAddress, tfjsonpath.New("rotate_after_seconds"), knownvalue.Int64Exact(2_592_000)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					captureAttribute(webhookAddress, "id", &webhookID),
					captureAttribute(alertKeyAddress, "key_id", &keyID),
					captureSigningSecret(&firstSecret),
					resource.TestCheckResourceAttr(webhookAddress, "signing_secret_known", "true"),
					resource.TestCheckResourceAttr(webhookAddress, "version", "1"),
					func(*terraform.State) error {
						return expectGatewayWebhook(t, webhookID, []string{"key.budget_threshold", "key.expiring", "audit.rotate"}, true)
					},
					func(*terraform.State) error {
						return expectKeyAlerts(t, keyID, []float32{0.5, 0.8, 1}, 604_800, 2_592_000)
					},
				),
			},
			{
				// Events, enabled, thresholds and the warning: one PATCH each, the same endpoint and secret.
				Config: alertsConfig("[0.9]", "1d", `["key.budget_threshold", "key.rotation_due"]`, "false", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(webhookAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(alertKeyAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(webhookAddress, tfjsonpath.New("id"), sameWebhook),
					plancheck.ExpectUnknownValue(webhookAddress, tfjsonpath.New("version")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(webhookAddress, "version", "2"),
					resource.TestCheckResourceAttrWith(webhookAddress, "signing_secret", func(value string) error {
						if value != firstSecret {
							return fmt.Errorf("a change of events replaced the signing secret")
						}
						return nil
					}),
					func(*terraform.State) error {
						return expectGatewayWebhook(t, webhookID, []string{"key.budget_threshold", "key.rotation_due"}, false)
					},
					func(*terraform.State) error { return expectKeyAlerts(t, keyID, []float32{0.9}, 86_400, 2_592_000) },
				),
			},
			{
				// A new rotation_trigger: the signing secret rotates in place, the endpoint stays.
				Config: alertsConfig("[0.9]", "1d", `["key.budget_threshold", "key.rotation_due"]`, "false", `  rotation_trigger = "2026-11"
  rotation_overlap = "1h"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(webhookAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(alertKeyAddress, plancheck.ResourceActionNoop),
					plancheck.ExpectUnknownValue(webhookAddress, tfjsonpath.New("signing_secret")),
					plancheck.ExpectKnownValue(webhookAddress, tfjsonpath.New("id"), sameWebhook),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					captureSigningSecret(&rotatedSecret),
					resource.TestCheckResourceAttrSet(webhookAddress, "previous_secret_expires_at"),
					func(*terraform.State) error {
						if rotatedSecret == firstSecret || !strings.HasPrefix(rotatedSecret, "whsec_") {
							return fmt.Errorf("the rotation did not hand out a new whsec_ secret")
						}
						return nil
					},
				),
			},
			{
				// Import by id: everything but what only the state holds (the secret, the rotation settings) is read back.
				ResourceName:            webhookAddress,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"signing_secret", "signing_secret_known", "rotation_trigger", "rotation_overlap"},
				Config: alertsConfig("[0.9]", "1d", `["key.budget_threshold", "key.rotation_due"]`, "false", `  rotation_trigger = "2026-11"
  rotation_overlap = "1h"`),
			},
		},
	})
}

// captureSigningSecret copies the endpoint's signing secret into target, and remembers it for the scan of the logs.
func captureSigningSecret(target *string) func(*terraform.State) error {
	return func(state *terraform.State) error {
		if err := captureAttribute(webhookAddress, "signing_secret", target)(state); err != nil {
			return err
		}
		seenSecrets.Store(*target, true)
		return nil
	}
}

func expectGatewayWebhook(t *testing.T, webhookID string, events []string, enabled bool) error {
	record, err := gateway(t).GetWebhook(context.Background(), webhookID)
	if err != nil {
		return fmt.Errorf("reading webhook %s from the gateway: %w", webhookID, err)
	}
	fields := webhookRecordFields(record)
	if !sameJSON(fields.Events, events) || fields.Enabled != enabled || fields.LabelSelector["team"] != "search" {
		return fmt.Errorf("the gateway has webhook %s with events %v, enabled %v, selector %v; want %v, %v, team=search",
			webhookID, fields.Events, fields.Enabled, fields.LabelSelector, events, enabled)
	}
	return nil
}

func expectKeyAlerts(t *testing.T, keyID string, thresholds []float32, warning, rotateAfter int) error {
	record, err := gateway(t).Get(context.Background(), keyID)
	if err != nil {
		return fmt.Errorf("reading key %s from the gateway: %w", keyID, err)
	}
	gotWarning, _ := record.ExpiryWarningSeconds.Get()
	gotRotate, _ := record.RotateAfterSeconds.Get()
	if !sameJSON(record.BudgetAlertThresholds, thresholds) || gotWarning != warning || gotRotate != rotateAfter {
		return fmt.Errorf("the gateway has key %s with thresholds %v, expiryWarningSeconds %d, rotateAfterSeconds %d; want %v, %d, %d",
			keyID, record.BudgetAlertThresholds, gotWarning, gotRotate, thresholds, warning, rotateAfter)
	}
	return nil
}

// A bad URL, an unknown or repeated event type, a bad overlap: each named at plan time, nothing sent.
func TestAccWebhookValidation(t *testing.T) {
	requireEnvironment(t)
	cases := map[string]struct{ attributes, message string }{
		`url = "ftp://hooks.example.com"` + "\n  events = [\"key.expired\"]":                                {"url", `http:// or https:// URL`},
		`url = "https://me:pw@hooks.example.com"` + "\n  events = [\"key.expired\"]":                        {"url", `without user or password`},
		`url = "https://hooks.example.com"` + "\n  events = [\"key.exploded\"]":                             {"events", `value must be one of`},
		`url = "https://hooks.example.com"` + "\n  events = [\"key.expired\", \"key.expired\"]":             {"events", `duplicate values`},
		`url = "https://hooks.example.com"` + "\n  events = []":                                             {"events", `at least 1`},
		`url = "https://hooks.example.com"` + "\n  events = [\"key.expired\"]\n  rotation_overlap = \"8d\"": {"rotation_overlap", `at most 7d`},
	}
	var steps []resource.TestStep
	for lines, want := range cases {
		steps = append(steps, resource.TestStep{
			Config:      fmt.Sprintf("resource \"gatewaykeys_webhook\" \"test\" {\n  %s\n}\n", lines),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(want.attributes) + `.*` + want.message),
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: providerFactories, Steps: steps})
}
