package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const keyAddress = "gatewaykeys_api_key.test"

// keyConfig is a configuration of one key with every policy, the parts a step changes filled in.
func keyConfig(name, limit, extra string) string {
	return fmt.Sprintf(`
resource "gatewaykeys_api_key" "test" {
  name  = %q
  state = "active"
  spend_policy = {
    limit_units  = %q
    reset_period = "monthly"
  }
  logging_policy    = { store_request = true, retention_days = 7 }
  model_policy      = { mode = "allowList", model_ids = ["echo-1"] }
  rate_limit_policy = { requests_per_minute = 100000, max_concurrent_requests = 64 }
  expires_at        = "2099-01-01T01:00:00+01:00"
  labels            = { team = "search", env = "test" }
  rotation_grace_period = "1h"
%s
}
`, name, limit, extra)
}

// The whole life of a key through tofu: create, an empty plan, a change in place, a rotation with
// grace under continuous traffic, a scheduled rotation once per due date, drift undone, destroy.
func TestAccAPIKeyLifecycle(t *testing.T) {
	requireEnvironment(t)
	var keyID, firstSecret, rotatedSecret string
	var traffic *traffic
	var clock testClock
	sameKey := knownvalue.StringFunc(func(value string) error {
		if value != keyID {
			return fmt.Errorf("key_id is %s, want the created key %s (in place, never replaced)", value, keyID)
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factoriesWith(clock.now),
		CheckDestroy:             checkRevoked(&keyID),
		Steps: []resource.TestStep{
			{
				Config: keyConfig("acc-lifecycle", "100.50", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(keyAddress, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(keyAddress, tfjsonpath.New("client_reference"), knownvalue.StringExact("terraform:acc-lifecycle")),
					plancheck.ExpectSensitiveValue(keyAddress, tfjsonpath.New("secret")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					captureAttribute(keyAddress, "key_id", &keyID),
					captureAttribute(keyAddress, "secret", &firstSecret),
					resource.TestCheckResourceAttr(keyAddress, "version", "1"),
					resource.TestCheckResourceAttr(keyAddress, "secret_known", "true"),
					resource.TestCheckResourceAttr(keyAddress, "spend_policy.limit_units", "100.50"),
					resource.TestCheckResourceAttr(keyAddress, "expires_at", "2099-01-01T01:00:00+01:00"),
					resource.TestCheckResourceAttr(keyAddress, "logging_policy.store_response", "false"),
					func(*terraform.State) error { return expectGatewayKey(t, keyID, "acc-lifecycle", "100.5", 1) },
				),
			},
			{
				// A change of name, limit and labels: one PATCH, the same key and secret.
				Config: keyConfig("acc-lifecycle-renamed", "250", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(keyAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(keyAddress, tfjsonpath.New("key_id"), sameKey),
					plancheck.ExpectUnknownValue(keyAddress, tfjsonpath.New("version")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(keyAddress, "version", "2"),
					resource.TestCheckResourceAttrWith(keyAddress, "secret", func(value string) error {
						if value != firstSecret {
							return fmt.Errorf("a change of policies replaced the secret")
						}
						return nil
					}),
					func(*terraform.State) error { return expectGatewayKey(t, keyID, "acc-lifecycle-renamed", "250", 2) },
				),
			},
			{
				// A rotation in place while a consumer calls a model non-stop, moving to the new
				// secret once the apply hands it out: the grace period refuses none of its requests.
				PreConfig: func() { traffic = startTraffic(firstSecret) },
				Config:    keyConfig("acc-lifecycle-renamed", "250", `rotation_trigger = "2026-11"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(keyAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(keyAddress, tfjsonpath.New("secret")),
					plancheck.ExpectKnownValue(keyAddress, tfjsonpath.New("key_id"), sameKey),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					captureAttribute(keyAddress, "secret", &rotatedSecret),
					resource.TestCheckResourceAttrSet(keyAddress, "rotated_at"),
					resource.TestCheckResourceAttrSet(keyAddress, "previous_secret_expires_at"),
					func(*terraform.State) error {
						return expectRotationServedEverything(traffic, firstSecret, rotatedSecret)
					},
				),
			},
			{
				// rotate_after added to a fresh secret: its length goes to the gateway (one PATCH of
				// rotateAfterSeconds, so it sends key.rotation_due at that age), nothing rotated.
				Config: keyConfig("acc-lifecycle-renamed", "250", `rotation_trigger = "2026-11"
  rotate_after = "30d"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(keyAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(keyAddress, tfjsonpath.New("version")),
					plancheck.ExpectKnownValue(keyAddress, tfjsonpath.New("rotate_after_seconds"), knownvalue.Int64Exact(2_592_000)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(keyAddress, "version", "4"),
					resource.TestCheckResourceAttrWith(keyAddress, "secret", func(value string) error {
						if value != rotatedSecret {
							return fmt.Errorf("adding rotate_after rotated a fresh secret")
						}
						return nil
					}),
				),
			},
			{
				// 31 days on, the secret is due: one rotation, and the plan after it is empty.
				PreConfig: func() { clock.pass(31 * 24 * time.Hour) },
				Config: keyConfig("acc-lifecycle-renamed", "250", `rotation_trigger = "2026-11"
  rotate_after = "30d"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(keyAddress, tfjsonpath.New("secret")),
					plancheck.ExpectUnknownValue(keyAddress, tfjsonpath.New("secret_issued_at")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(keyAddress, "version", "5"),
					resource.TestCheckResourceAttrWith(keyAddress, "secret", func(value string) error {
						seenSecrets.Store(value, true)
						if value == rotatedSecret {
							return fmt.Errorf("the due rotation kept the old secret")
						}
						return nil
					}),
				),
			},
			{
				// A rename made outside Terraform shows on the plan and is undone in place.
				PreConfig: func() { renameOutside(t, keyID, "renamed-outside") },
				Config: keyConfig("acc-lifecycle-renamed", "250", `rotation_trigger = "2026-11"
  rotate_after = "30d"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(keyAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(keyAddress, tfjsonpath.New("name"), knownvalue.StringExact("acc-lifecycle-renamed")),
				}},
				Check: func(*terraform.State) error { return expectGatewayKey(t, keyID, "acc-lifecycle-renamed", "250", 7) },
			},
		},
	})
}

// A key made outside Terraform, imported with `tofu import`: the plan after it has no changes,
// and destroy revokes it.
func TestAccAPIKeyImport(t *testing.T) {
	requireEnvironment(t)
	var keyID string
	var clock testClock
	config := `
resource "gatewaykeys_api_key" "test" {
  name         = "acc-imported"
  spend_policy = { limit_units = "12.5", reset_period = "weekly" }
  rate_limit_policy = { tokens_per_minute = 50000 }
  labels       = { team = "ops" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factoriesWith(clock.now),
		CheckDestroy:             checkRevoked(&keyID),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					keyID = createOutside(t, `{"name":"acc-imported","spendPolicy":{"limitUnits":"12.5","resetPeriod":"weekly"},"rateLimitPolicy":{"tokensPerMinute":50000},"labels":{"team":"ops"}}`)
				},
				Config:             config,
				ResourceName:       keyAddress,
				ImportState:        true,
				ImportStatePersist: true,
				ImportStateIdFunc:  func(*terraform.State) (string, error) { return keyID, nil },
			},
			{Config: config, PlanOnly: true},
			{
				// Rotation settings: no rotation, even 60 days on; only rotate_after's length is sent
				// (rotateAfterSeconds, so the gateway sends key.rotation_due), the secret stays unknown.
				PreConfig: func() { clock.pass(60 * 24 * time.Hour) },
				Config:    strings.Replace(config, `name         = "acc-imported"`, "name = \"acc-imported\"\n  rotate_after = \"30d\"\n  rotation_trigger = \"1\"\n  rotation_grace_period = \"1h\"", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(keyAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(keyAddress, tfjsonpath.New("version")),
					plancheck.ExpectKnownValue(keyAddress, tfjsonpath.New("secret"), knownvalue.Null()),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(keyAddress, "version", "2"),
					resource.TestCheckResourceAttr(keyAddress, "rotate_after_seconds", "2592000"),
				),
			},
		},
	})
}

// The answer of a create was lost after the gateway made the key: the next apply finds that key
// by the client reference the configuration gives it and takes it over (a working secret, no
// second key).
func TestAccAPIKeyCreateFindsKeyOfLostAnswer(t *testing.T) {
	requireEnvironment(t)
	var keyID, lostKeyID, secret string
	name := fmt.Sprintf("acc-lost-%d", time.Now().UnixNano())
	reference := "terraform:acceptance/" + name
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy:             checkRevoked(&keyID),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				lostKeyID = createOutside(t, fmt.Sprintf(`{"name":%q,"clientReference":%q}`, name, reference))
			},
			Config: fmt.Sprintf(`resource "gatewaykeys_api_key" "test" {
  name             = %q
  client_reference = %q
  spend_policy     = { limit_units = "5" }
}`, name, reference),
			Check: resource.ComposeAggregateTestCheckFunc(
				captureAttribute(keyAddress, "key_id", &keyID),
				captureAttribute(keyAddress, "secret", &secret),
				func(*terraform.State) error {
					if keyID != lostKeyID {
						return fmt.Errorf("the apply made key %s; it should have taken over %s, made by the lost create", keyID, lostKeyID)
					}
					if status, err := modelCall(secret); err != nil || status != 200 {
						return fmt.Errorf("the taken-over key's secret in state does not work: %d %v", status, err)
					}
					return expectGatewayKey(t, keyID, name, "5", 3) // created, policies brought to the configuration, rotated
				},
			),
		}},
	})
}

// With the default reference (from the name), a live key that carries it may be another
// configuration's: the create stops, names the key and the import command, and makes no key.
func TestAccAPIKeyCreateStopsAtAKeyItCannotVouchFor(t *testing.T) {
	requireEnvironment(t)
	var existing string
	name := fmt.Sprintf("acc-unvouched-%d", time.Now().UnixNano())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				existing = createOutside(t, fmt.Sprintf(`{"name":%q,"clientReference":"terraform:%s"}`, name, name))
			},
			Config:      fmt.Sprintf("resource \"gatewaykeys_api_key\" \"test\" {\n  name = %q\n}\n", name),
			ExpectError: regexp.MustCompile(`(?s)already carries client_reference.*no key.*was made.*tofu import`),
		}, {
			// Nothing was made: the only key of that name is the one that was there.
			PreConfig: func() {
				page, err := gateway(t).List(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				var named []string
				for _, key := range page {
					if key.Name == name {
						named = append(named, key.KeyId)
					}
				}
				if len(named) != 1 || named[0] != existing {
					t.Fatalf("keys named %s after the refused create: %v; want only %s", name, named, existing)
				}
			},
			Config:   "# nothing",
			PlanOnly: true,
		}},
	})
}

// The data sources read a key and the models as the gateway has them.
func TestAccDataSources(t *testing.T) {
	requireEnvironment(t)
	var keyID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy:             checkRevoked(&keyID),
		Steps: []resource.TestStep{{
			Config: `
resource "gatewaykeys_api_key" "test" {
  name   = "acc-data"
  labels = { team = "data" }
}
data "gatewaykeys_api_key" "read" {
  key_id = gatewaykeys_api_key.test.key_id
}
data "gatewaykeys_models" "chat" {
  family = "chat"
}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				captureAttribute(keyAddress, "key_id", &keyID),
				resource.TestCheckResourceAttrPair("data.gatewaykeys_api_key.read", "key_id", keyAddress, "key_id"),
				resource.TestCheckResourceAttr("data.gatewaykeys_api_key.read", "name", "acc-data"),
				resource.TestCheckResourceAttr("data.gatewaykeys_api_key.read", "labels.team", "data"),
				resource.TestCheckResourceAttr("data.gatewaykeys_api_key.read", "state", "active"),
				resource.TestCheckNoResourceAttr("data.gatewaykeys_api_key.read", "secret"),
				resource.TestCheckTypeSetElemAttr("data.gatewaykeys_models.chat", "ids.*", "echo-1"),
				resource.TestCheckResourceAttr("data.gatewaykeys_models.chat", "models.0.family", "chat"),
			),
		}},
	})
}

// Bad values are refused at plan, naming the attribute, before anything is sent.
func TestAccAPIKeyValidation(t *testing.T) {
	requireEnvironment(t)
	cases := map[string]struct{ attribute, message string }{
		`spend_policy = { limit_units = "-3" }`:                                            {"spend_policy.limit_units", `must be a decimal string`},
		`rotate_after = "5m"`:                                                              {"rotate_after", `from 1h to 3650d`},
		`labels = { "Team" = "x" }`:                                                        {"labels", `lowercase letters`},
		`rate_limit_policy = {}`:                                                           {"rate_limit_policy", `sets no limit: expected at least one of`},
		`expires_at = "tomorrow"`:                                                          {"expires_at", `RFC 3339`},
		`model_policy = { mode = "some" }`:                                                 {"model_policy.mode", `value must be one of`},
		`logging_policy = { retention_days = 400 }`:                                        {"logging_policy.retention_days", `between 1 and 365`},
		`rotation_grace_period = "8d"`:                                                     {"rotation_grace_period", `at most 7d`},
		`expiry_warning = "400d"`:                                                          {"expiry_warning", `from 1m to 365d`},
		`retire_when_idle = "15m"`:                                                         {"rotation_grace_period", `must be specified when "retire_when_idle"`},
		"rotation_grace_period = \"1h\"\n  retire_when_idle = \"2s\"":                      {"retire_when_idle", `from 5s to 7d`},
		"rotation_grace_period = \"0s\"\n  in_use_warning = \"5m\"":                        {"in_use_warning", `needs rotation_grace_period greater than 0`},
		"rotation_grace_period = \"1h\"\n  in_use_warning = \"60m\"":                       {"in_use_warning", `must be shorter than rotation_grace_period \(1h\)`},
		`budget_alert_thresholds = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1]`: {"budget_alert_thresholds", `at most 10`},
	}
	var steps []resource.TestStep
	for line, want := range cases {
		steps = append(steps, resource.TestStep{
			Config:      fmt.Sprintf("resource \"gatewaykeys_api_key\" \"test\" {\n  name = \"acc-invalid\"\n  %s\n}\n", line),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(want.attribute) + `.*` + want.message),
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: providerFactories, Steps: steps})
}

// expectGatewayKey checks the key as the gateway has it, behind Terraform's back.
func expectGatewayKey(t *testing.T, keyID, name, limit string, version int) error {
	record, err := gateway(t).Get(context.Background(), keyID)
	if err != nil {
		return err
	}
	union, err := record.SpendPolicy.Get()
	if err != nil {
		return fmt.Errorf("key %s has no spend policy on the gateway", keyID)
	}
	spend, err := union.AsSpendPolicyRecord1()
	if err != nil {
		return fmt.Errorf("key %s has a spend policy of several windows on the gateway: %w", keyID, err)
	}
	if record.Name != name || unitsText(spend.LimitUnits) != limit || record.Version != version {
		return fmt.Errorf("the gateway has key %s as name %q, limit %v, version %d; want %q, %s, %d", keyID, record.Name, spend.LimitUnits, record.Version, name, limit, version)
	}
	return nil
}

// expectRotationServedEverything moves the traffic to the new secret, lets it run on it a little,
// and checks that no request of the whole rotation was refused and that both secrets work now.
func expectRotationServedEverything(tr *traffic, old, rotated string) error {
	if rotated == old {
		return fmt.Errorf("the rotation kept the old secret")
	}
	tr.secret.Store(rotated)
	time.Sleep(300 * time.Millisecond)
	byCode, failure := tr.finish()
	if failure != nil {
		return failure
	}
	if len(byCode) != 1 || byCode[200] < 10 {
		return fmt.Errorf("answers during the rotation by status: %v; want only 200s (at least 10)", byCode)
	}
	for label, secret := range map[string]string{"old (in its grace period)": old, "new": rotated} {
		if status, err := modelCall(secret); err != nil || status != 200 {
			return fmt.Errorf("the %s secret got %d %v", label, status, err)
		}
	}
	return nil
}

// checkRevoked checks that destroy revoked the key.
func checkRevoked(keyID *string) func(*terraform.State) error {
	return func(*terraform.State) error {
		client, err := account.New(os.Getenv(BaseURLVariable), os.Getenv(ProvisioningKeyVariable), "acceptance-test", 30*time.Second)
		if err != nil {
			return err
		}
		record, err := client.Get(context.Background(), *keyID)
		if err != nil {
			return err
		}
		if record.State != gatewayapi.ApiKeyStateRevoked {
			return fmt.Errorf("destroy left key %s %s; want revoked", *keyID, record.State)
		}
		return nil
	}
}

func renameOutside(t *testing.T, keyID, name string) {
	_, version, _ := keyOf(t, keyID)
	body := gatewayapi.UpdateApiKeyRequest{ExpectedVersion: version, Name: &name}
	if _, err := gateway(t).Update(context.Background(), keyID, body, account.IdempotencyKey("test-rename", keyID, body)); err != nil {
		t.Fatalf("renaming %s outside Terraform: %v", keyID, err)
	}
}

// createOutside makes a key with the account API directly, as a script or another tool would.
func createOutside(t *testing.T, requestJSON string) string {
	var body gatewayapi.CreateApiKeyRequest
	if err := json.Unmarshal([]byte(requestJSON), &body); err != nil {
		t.Fatal(err)
	}
	created, err := gateway(t).Create(context.Background(), body, account.IdempotencyKey("test-create", requestJSON, time.Now().UnixNano()))
	if err != nil {
		t.Fatalf("creating a key outside Terraform: %v", err)
	}
	return created.Key.KeyId
}

// The apply that made a key died before recording it, within the gateway's idempotency lifetime:
// the next apply sends the same derived Idempotency-Key, gets the first answer replayed with its
// secret, and keeps that key as it is (no second key, no rotation).
func TestAccAPIKeyCreateReplaysLostAnswer(t *testing.T) {
	requireEnvironment(t)
	name := fmt.Sprintf("acc-replay-%d", time.Now().UnixNano())
	reference := "terraform:acceptance/" + name
	// The request the provider makes for the configuration below, sent first as the lost apply did.
	declared := keyFields{
		Name: name, State: "active", Labels: map[string]string{},
		LoggingPolicy: gatewayapi.LoggingPolicy{StoreRequest: ptr(false), StoreResponse: ptr(false), RetentionDays: ptr(30)},
		ModelPolicy:   gatewayapi.ModelPolicy{Mode: ptr(gatewayapi.ModelPolicyModeAll), ModelIds: &[]string{}},
	}
	body := createRequest(declared, reference)
	var keyID string
	var lost *account.Created
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy:             checkRevoked(&keyID),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				var err error
				if lost, err = gateway(t).Create(context.Background(), body, account.IdempotencyKey("create", body, "")); err != nil {
					t.Fatalf("the lost create: %v", err)
				}
				seenSecrets.Store(lost.Secret, true)
			},
			Config: fmt.Sprintf("resource \"gatewaykeys_api_key\" \"test\" {\n  name = %q\n  client_reference = %q\n}\n", name, reference),
			Check: resource.ComposeAggregateTestCheckFunc(
				captureAttribute(keyAddress, "key_id", &keyID),
				func(state *terraform.State) error {
					attributes := state.RootModule().Resources[keyAddress].Primary.Attributes
					if attributes["key_id"] != lost.Key.KeyId || attributes["version"] != "1" || attributes["secret"] != lost.Secret || attributes["secret_known"] != "true" {
						return fmt.Errorf("the apply did not keep the lost create's key %s at version 1 with its secret (got key %s, version %s, the same secret: %v)",
							lost.Key.KeyId, attributes["key_id"], attributes["version"], attributes["secret"] == lost.Secret)
					}
					return nil
				},
			),
		}},
	})
}

// A key revoked outside Terraform leaves the state on refresh, and the plan makes a new one.
func TestAccAPIKeyRevokedOutside(t *testing.T) {
	requireEnvironment(t)
	var first, second string
	config := `resource "gatewaykeys_api_key" "test" {
  name             = "acc-revoked-outside"
  client_reference = "terraform:acc-revoked-outside"
}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy:             checkRevoked(&second),
		Steps: []resource.TestStep{
			{Config: config, Check: captureAttribute(keyAddress, "key_id", &first)},
			{
				PreConfig: func() {
					_, version, _ := keyOf(t, first)
					body := gatewayapi.VersionedRequest{ExpectedVersion: version}
					if err := gateway(t).Revoke(context.Background(), first, body, account.IdempotencyKey("test-revoke", first)); err != nil {
						t.Fatalf("revoking %s outside Terraform: %v", first, err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(keyAddress, plancheck.ResourceActionCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					captureAttribute(keyAddress, "key_id", &second),
					func(*terraform.State) error {
						if second == first {
							return fmt.Errorf("the revoked key %s is still the resource's key", first)
						}
						return nil
					},
				),
			},
		},
	})
}

// An import block (`import { to, id }`) plans the import of a key made outside as a no-op.
func TestAccAPIKeyImportBlock(t *testing.T) {
	requireEnvironment(t)
	var keyID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				keyID = createOutside(t, `{"name":"acc-import-block","state":"disabled","expiresAt":"2098-06-01T00:00:00Z","modelPolicy":{"mode":"allowList","modelIds":["echo-1"]}}`)
			},
			Config: `resource "gatewaykeys_api_key" "test" {
  name         = "acc-import-block"
  state        = "disabled"
  expires_at   = "2098-06-01T00:00:00Z"
  model_policy = { mode = "allowList", model_ids = ["echo-1"] }
}`,
			ResourceName:      keyAddress,
			ImportState:       true,
			ImportStateKind:   resource.ImportBlockWithID,
			ImportStateIdFunc: func(*terraform.State) (string, error) { return keyID, nil },
		}},
	})
}
