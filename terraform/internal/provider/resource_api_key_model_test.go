package provider

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
)

func TestDurationsReadAsThePulumiProviderWritesThem(t *testing.T) {
	for text, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute, "45s": 45 * time.Second} {
		if got, ok := parseDuration(text); !ok || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", text, got, ok, want)
		}
	}
	for _, text := range []string{"", "1w", "1.5h", "-1h", "1h30m", "h"} {
		if _, ok := parseDuration(text); ok {
			t.Errorf("parseDuration(%q) accepted it", text)
		}
	}
}

func TestAnAmountOrInstantInAnotherSpellingIsNoChange(t *testing.T) {
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	inParis := at.In(time.FixedZone("CET", 3600))
	period := "never"
	declared := keyFields{Name: "k", State: "active", SpendPolicy: &account.SpendPolicy{LimitUnits: "100.50", Currency: "unit", ResetPeriod: period}, ExpiresAt: &inParis, Labels: map[string]string{}}
	current := keyFields{Name: "k", State: "active", SpendPolicy: &account.SpendPolicy{LimitUnits: "100.5", Currency: "unit", ResetPeriod: period}, ExpiresAt: &at, Labels: map[string]string{}}
	if changed := changedFields(declared, current); len(changed) != 0 {
		t.Fatalf("changedFields = %v; want none", changed)
	}
	current.SpendPolicy = nil
	if changed := changedFields(declared, current); len(changed) != 1 || changed[0] != fieldSpendPolicy {
		t.Fatalf("changedFields = %v; want [spendPolicy]", changed)
	}
}

func TestAPatchSendsOnlyTheChangedFieldsAndClearsARemovedPolicyWithNull(t *testing.T) {
	fields := keyFields{Name: "renamed", State: "active", Labels: map[string]string{}}
	body, err := json.Marshal(changeRequest(4, fields, []string{fieldName, fieldRateLimitPolicy, fieldExpiresAt}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"expectedVersion":4,"expiresAt":null,"name":"renamed","rateLimitPolicy":null}`; string(body) != want {
		t.Fatalf("PATCH body %s; want %s", body, want)
	}
}

func TestACreateLeavesOutWhatTheGatewayDefaults(t *testing.T) {
	period := "never"
	fields := keyFields{
		Name: "k", State: "active", SpendPolicy: &account.SpendPolicy{LimitUnits: "5", ResetPeriod: period}, Labels: map[string]string{},
		LoggingPolicy: gatewayapi.LoggingPolicy{StoreRequest: ptr(false), StoreResponse: ptr(false), RetentionDays: ptr(30)},
		ModelPolicy:   gatewayapi.ModelPolicy{Mode: ptr(gatewayapi.ModelPolicyModeAll), ModelIds: &[]string{}},
	}
	body, err := json.Marshal(createRequest(fields, "terraform:k"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"clientReference":"terraform:k","loggingPolicy":{"retentionDays":30,"storeRequest":false,"storeResponse":false},"modelPolicy":{"mode":"all","modelIds":[]},"name":"k","spendPolicy":{"limitUnits":"5"},"state":"active"}`
	if string(body) != want {
		t.Fatalf("create body %s; want %s (no resetPeriod \"never\", no empty labels, no null policies)", body, want)
	}
}
