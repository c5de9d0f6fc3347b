package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The event types gatewaykeys_webhook accepts at plan time are the ones the account API takes: the
// enum of CreateWebhookRequest.events in docs/openapi.json (generated from the contract).
func TestWebhookEventTypesAreTheOpenAPIDocuments(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var document struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Items struct {
						Enum []string `json:"enum"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(text, &document); err != nil {
		t.Fatal(err)
	}
	documented := document.Components.Schemas["CreateWebhookRequest"].Properties["events"].Items.Enum
	if len(documented) == 0 {
		t.Fatal("docs/openapi.json lists no event types for CreateWebhookRequest.events")
	}
	if !sameJSON(documented, webhookEventTypes) {
		t.Fatalf("webhookEventTypes is %v; the OpenAPI document lists %v: update resource_webhook_schema.go", webhookEventTypes, documented)
	}
}
