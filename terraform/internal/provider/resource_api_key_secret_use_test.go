package provider

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// secretUseConfig is a key that rotates with a grace and retire_when_idle, its trigger filled in.
func secretUseConfig(trigger string) string {
	return fmt.Sprintf(`
resource "gatewaykeys_api_key" "test" {
  name                  = "acc-secret-use"
  rotation_trigger      = %q
  rotation_grace_period = "1h"
  retire_when_idle      = "15m"
}
`, trigger)
}

// callAs makes one model request with secret as a service that names itself in its User-Agent.
func callAs(userAgent, secret string) (int, error) {
	body := bytes.NewBufferString(`{"model":"echo-1","input":"hello"}`)
	req, err := http.NewRequest(http.MethodPost, strings.TrimRight(os.Getenv(BaseURLVariable), "/")+"/v1/responses", body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// retire_when_idle reaches the gateway with the rotation; a refresh after traffic on the old secret
// brings its use and client into state with an empty plan; a plan that rotates again is still made.
func TestAccAPIKeySecretUse(t *testing.T) {
	requireEnvironment(t)
	var keyID, firstSecret string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy:             checkRevoked(&keyID),
		Steps: []resource.TestStep{
			{
				Config: secretUseConfig("1"),
				Check: resource.ComposeAggregateTestCheckFunc(
					captureAttribute(keyAddress, "key_id", &keyID),
					captureAttribute(keyAddress, "secret", &firstSecret),
					resource.TestCheckNoResourceAttr(keyAddress, "previous_secret.hint"),
				),
			},
			{
				Config: secretUseConfig("2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(keyAddress, "previous_secret.retire_when_idle_seconds", "900"),
					resource.TestCheckResourceAttr(keyAddress, "previous_secret.requests_since_rotation", "0"),
					func(*terraform.State) error {
						record, err := gateway(t).Get(context.Background(), keyID)
						if err != nil {
							return err
						}
						previous, err := record.PreviousSecret.Get()
						if err != nil {
							return fmt.Errorf("the gateway's key has no previous secret after a rotation with grace: %v", err)
						}
						if idle, err := previous.RetireWhenIdleSeconds.Get(); err != nil || idle != 900 {
							return fmt.Errorf("the gateway's previousSecret.retireWhenIdleSeconds is %v (%v), want 900", idle, err)
						}
						// Billing never redeploys: it keeps calling with the old secret.
						if status, err := callAs("billing-service/1.0", firstSecret); err != nil || status != 200 {
							return fmt.Errorf("a call with the old secret in its grace got %d (%v), want 200", status, err)
						}
						return waitForPreviousSecretUse(t, keyID)
					},
				),
			},
			{
				// The refresh brings the use in; the plan is empty all the same.
				Config:   secretUseConfig("2"),
				PlanOnly: true,
			},
			{
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(keyAddress, "previous_secret.requests_since_rotation", "1"),
					resource.TestCheckResourceAttr(keyAddress, "previous_secret.clients.#", "1"),
					resource.TestCheckResourceAttr(keyAddress, "previous_secret.clients.0.user_agent", "billing-service/1.0"),
					resource.TestCheckResourceAttrSet(keyAddress, "previous_secret.last_used_at"),
					resource.TestCheckNoResourceAttr(keyAddress, "previous_secret.retired_reason"),
				),
			},
			{
				// A rotation over the secret billing still uses: planned (with the warning), not refused.
				Config:             secretUseConfig("3"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// Applied, it ends billing's secret at once; the one before shows as retired by the rotation.
				Config: secretUseConfig("3"),
				Check: func(*terraform.State) error {
					if status, err := callAs("billing-service/1.0", firstSecret); err != nil || status != 401 {
						return fmt.Errorf("a call with the secret two rotations back got %d (%v), want 401", status, err)
					}
					return nil
				},
			},
		},
	})
}

// waitForPreviousSecretUse waits until the gateway has flushed the old secret's use (every few seconds).
func waitForPreviousSecretUse(t *testing.T, keyID string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		record, err := gateway(t).Get(context.Background(), keyID)
		if err != nil {
			return err
		}
		if previous, err := record.PreviousSecret.Get(); err == nil && previous.RequestsSinceRotation > 0 {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the gateway never showed the old secret's use")
}

// previousSecretState is a previous_secret value as a refresh leaves it.
func previousSecretState(t *testing.T, lastUsed time.Time, requests int64, retireWhenIdle *int64, clients ...secretClientModel) types.Object {
	t.Helper()
	ctx := context.Background()
	list, diags := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: secretClientTypes}, clients)
	idle := types.Int64Null()
	if retireWhenIdle != nil {
		idle = types.Int64Value(*retireWhenIdle)
	}
	value, more := types.ObjectValueFrom(ctx, previousSecretTypes, previousSecretModel{
		Hint: types.StringValue("gwk_…q3Xz"), LastUsedAt: types.StringValue(timeText(lastUsed)), RequestsSinceRotation: types.Int64Value(requests),
		Clients: list, ExpiresAt: types.StringValue(timeText(lastUsed.Add(time.Hour))), RetireWhenIdleSeconds: idle,
		InUseWarningAt: types.StringNull(), RetiredAt: types.StringNull(), RetiredReason: types.StringNull(),
	})
	diags.Append(more...)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return value
}

// The plan's warning follows the contract's previousSecretInUse: in use while a request came within
// the idle window (retire_when_idle, else an hour) and the secret still authenticates; it names the clients.
func TestARotationWarnsOfAPreviousSecretStillInUse(t *testing.T) {
	now := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	billing := secretClientModel{
		UserAgent: types.StringValue("billing-service/1.0"), Address: types.StringValue("10.0.0.7"),
		FirstSeenAt: types.StringValue(timeText(now.Add(-20 * time.Minute))), LastSeenAt: types.StringValue(timeText(now.Add(-10 * time.Minute))), Requests: types.Int64Value(2),
	}
	fifteen := int64(900)
	cases := []struct {
		name     string
		previous attr.Value
		warns    bool
	}{
		{"used 10 minutes ago, no retire_when_idle", previousSecretState(t, now.Add(-10*time.Minute), 2, nil, billing), true},
		{"used 10 minutes ago, retire_when_idle 15m", previousSecretState(t, now.Add(-10*time.Minute), 2, &fifteen, billing), true},
		{"used 20 minutes ago, retire_when_idle 15m", previousSecretState(t, now.Add(-20*time.Minute), 2, &fifteen, billing), false},
		{"used 2 hours ago", previousSecretState(t, now.Add(-2*time.Hour), 2, nil, billing), false},
		{"no request since the rotation", previousSecretState(t, now.Add(-time.Minute), 0, nil), false},
		{"no previous secret", types.ObjectNull(previousSecretTypes), false},
	}
	for _, c := range cases {
		prior := apiKeyModel{PreviousSecret: c.previous.(types.Object)}
		warning, diags := cutOffWarning(context.Background(), "key_test", prior, now)
		if diags.HasError() {
			t.Fatalf("%s: %v", c.name, diags)
		}
		if (warning != "") != c.warns {
			t.Errorf("%s: warning %q, want one: %v", c.name, warning, c.warns)
		}
		if c.warns && !strings.Contains(warning, `by "billing-service/1.0" from 10.0.0.7 (last seen 2026-11-27T00:50:00Z, 2 requests)`) {
			t.Errorf("%s: the warning does not name the client: %s", c.name, warning)
		}
	}
}
