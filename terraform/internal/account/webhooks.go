package account

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
)

// CreatedWebhook is a webhook create's answer: the endpoint, its signing secret (shown this once),
// and whether the gateway replayed the answer of an earlier identical create.
type CreatedWebhook struct {
	Webhook  gatewayapi.Webhook
	Secret   string
	Replayed bool
}

// CreateWebhook makes a webhook endpoint.
func (c *Client) CreateWebhook(ctx context.Context, body gatewayapi.CreateWebhookRequest, idempotencyKey string) (*CreatedWebhook, error) {
	resp, err := c.api.CreateWebhookWithResponse(ctx, &gatewayapi.CreateWebhookParams{IdempotencyKey: idempotencyKey}, body)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON201 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	webhook, err := webhookOf(resp.Body)
	if err != nil {
		return nil, err
	}
	replayed := resp.HTTPResponse.Header.Get("Idempotent-Replayed") == "true"
	return &CreatedWebhook{Webhook: webhook, Secret: resp.JSON201.Secret, Replayed: replayed}, nil
}

// GetWebhook reads one endpoint; an unknown one (or another owner's) is code webhook_not_found.
func (c *Client) GetWebhook(ctx context.Context, webhookID string) (*gatewayapi.Webhook, error) {
	resp, err := c.api.GetWebhookWithResponse(ctx, webhookID)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	return resp.JSON200, nil
}

// UpdateWebhook changes an endpoint at the version the body names.
func (c *Client) UpdateWebhook(ctx context.Context, webhookID string, body gatewayapi.UpdateWebhookRequest, idempotencyKey string) (*gatewayapi.Webhook, error) {
	resp, err := c.api.UpdateWebhookWithResponse(ctx, webhookID, &gatewayapi.UpdateWebhookParams{IdempotencyKey: idempotencyKey}, body)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	return resp.JSON200, nil
}

// RotateWebhookSecret issues a new signing secret; the old one keeps signing for the overlap.
func (c *Client) RotateWebhookSecret(ctx context.Context, webhookID string, body gatewayapi.RotateWebhookSecretRequest, idempotencyKey string) (*CreatedWebhook, error) {
	resp, err := c.api.RotateWebhookSecretWithResponse(ctx, webhookID, &gatewayapi.RotateWebhookSecretParams{IdempotencyKey: idempotencyKey}, body)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	webhook, err := webhookOf(resp.Body)
	if err != nil {
		return nil, err
	}
	return &CreatedWebhook{Webhook: webhook, Secret: resp.JSON200.Secret}, nil
}

// DeleteWebhook removes an endpoint (its pending deliveries are dropped).
func (c *Client) DeleteWebhook(ctx context.Context, webhookID, idempotencyKey string) error {
	resp, err := c.api.DeleteWebhookWithResponse(ctx, webhookID, &gatewayapi.DeleteWebhookParams{IdempotencyKey: idempotencyKey})
	if err != nil {
		return c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return errorFrom(resp.StatusCode(), resp.Body)
	}
	return nil
}

// webhookOf reads the endpoint record of an answer that also holds a secret (create, rotate-secret).
func webhookOf(body []byte) (gatewayapi.Webhook, error) {
	var webhook gatewayapi.Webhook
	if err := json.Unmarshal(body, &webhook); err != nil {
		return webhook, fmt.Errorf("the gateway's answer is not a webhook record: %w", err)
	}
	return webhook, nil
}
