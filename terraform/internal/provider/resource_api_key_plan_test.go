package provider

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// privateState is the framework's private state, as recordDue writes it.
type privateState map[string][]byte

func (p privateState) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) { return p[key], nil }
func (p privateState) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	p[key] = value
	return nil
}

// recordDue measures rotate_after against the instant the provider's clock gave it, nothing else.
func TestRotateAfterComesDueAtTheInstantTheClockGives(t *testing.T) {
	issued := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	key := apiKeyModel{RotateAfter: types.StringValue("30d"), SecretIssuedAt: types.StringValue(timeText(issued))}
	for _, at := range []time.Time{issued, issued.Add(30*24*time.Hour - time.Millisecond)} {
		private := privateState{dueKey: []byte(`"stale"`)}
		if diags := recordDue(context.Background(), at, key, private); diags.HasError() {
			t.Fatal(diags)
		}
		if private[dueKey] != nil {
			t.Errorf("at %s the secret issued %s is due already: %s", at, issued, private[dueKey])
		}
	}
	private := privateState{}
	if diags := recordDue(context.Background(), issued.Add(30*24*time.Hour), key, private); diags.HasError() {
		t.Fatal(diags)
	}
	var reason string
	if err := json.Unmarshal(private[dueKey], &reason); err != nil || reason != "scheduled: the secret issued 2030-01-01T00:00:00Z reached rotate_after 30d" {
		t.Errorf("at the due date, recorded %q (%v)", private[dueKey], err)
	}
}
