// Package account calls the gateway's account API for the provider: the generated client
// (package gatewayapi) behind one retry policy, derived idempotency keys and one error type.
package account

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
	"github.com/hashicorp/go-retryablehttp"
)

// Client is the account API of one gateway, as one owner's provisioning key sees it.
type Client struct {
	BaseURL string
	api     *gatewayapi.ClientWithResponses
}

// New makes a client that sends the provisioning key as a bearer token on every call.
//
// Connection failures, 429 and 5xx are retried (three times, honouring Retry-After), POSTs and
// PATCHes too: each mutation carries an Idempotency-Key derived from what it does, so a retry of a
// call that did reach the gateway is answered with the first answer instead of acting twice.
func New(baseURL, provisioningKey, userAgent string, timeout time.Duration) (*Client, error) {
	retrying := retryablehttp.NewClient()
	retrying.RetryMax = 3
	retrying.RetryWaitMin = 200 * time.Millisecond
	retrying.RetryWaitMax = 5 * time.Second
	retrying.Logger = nil // the provider logs what it does; a transport log could hold a URL with a key id only, but says nothing useful
	retrying.HTTPClient.Timeout = timeout
	// After the last attempt, the last answer (a 503, say) is read as an answer, not a transport error.
	retrying.ErrorHandler = retryablehttp.PassthroughErrorHandler
	base := strings.TrimRight(baseURL, "/")
	api, err := gatewayapi.NewClientWithResponses(base,
		gatewayapi.WithHTTPClient(retrying.StandardClient()),
		gatewayapi.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+provisioningKey)
			req.Header.Set("User-Agent", userAgent)
			return nil
		}))
	if err != nil {
		return nil, fmt.Errorf("base_url %q is not a URL the client can use: %w", baseURL, err)
	}
	return &Client{BaseURL: base, api: api}, nil
}

// Created is a create's answer: the key, its secret, and whether the gateway replayed the answer
// of an earlier identical create (same Idempotency-Key) rather than making a key now.
type Created struct {
	Key      gatewayapi.ApiKey
	Secret   string
	Replayed bool
}

// Rotated is a rotation's answer: the key and its new secret.
type Rotated struct {
	Key    gatewayapi.ApiKey
	Secret string
}

// IdempotencyKey derives the Idempotency-Key of a mutation from what it is (the operation, the key
// and the body), so the run after a crash sends the same key for the same operation and the
// gateway replays the answer the lost run never recorded. Prefixed so it never meets the Pulumi
// provider's keys (`gk1-`).
func IdempotencyKey(operation string, parts ...any) string {
	text, err := json.Marshal(parts)
	if err != nil {
		panic(fmt.Sprintf("idempotency key of %s: %v", operation, err)) // only plain request values reach here
	}
	sum := sha256.Sum256(text)
	return "gktf1-" + operation + "-" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// Get reads one key.
func (c *Client) Get(ctx context.Context, keyID string) (*gatewayapi.ApiKey, error) {
	resp, err := c.api.GetKeyWithResponse(ctx, keyID)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	return resp.JSON200, nil
}

// List reads every key of the owner, page by page.
func (c *Client) List(ctx context.Context) ([]gatewayapi.ApiKey, error) {
	var keys []gatewayapi.ApiKey
	params := &gatewayapi.ListKeysParams{Limit: ptr(100)}
	for {
		resp, err := c.api.ListKeysWithResponse(ctx, params)
		if err != nil {
			return nil, c.unanswered(err)
		}
		if resp.JSON200 == nil {
			return nil, errorFrom(resp.StatusCode(), resp.Body)
		}
		keys = append(keys, resp.JSON200.Data...)
		if !resp.JSON200.HasMore || resp.JSON200.NextCursor.IsNull() {
			return keys, nil
		}
		cursor, _ := resp.JSON200.NextCursor.Get()
		params.After = &cursor
	}
}

func ptr[T any](value T) *T { return &value }

// Create makes a key; see [Created] for a replayed answer.
func (c *Client) Create(ctx context.Context, body gatewayapi.CreateApiKeyRequest, idempotencyKey string) (*Created, error) {
	resp, err := c.api.CreateKeyWithResponse(ctx, &gatewayapi.CreateKeyParams{IdempotencyKey: idempotencyKey}, body)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON201 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	key, err := recordOf(resp.Body)
	if err != nil {
		return nil, err
	}
	replayed := resp.HTTPResponse.Header.Get("Idempotent-Replayed") == "true"
	return &Created{Key: key, Secret: resp.JSON201.Secret, Replayed: replayed}, nil
}

// Update changes a key at the version the body names.
func (c *Client) Update(ctx context.Context, keyID string, body gatewayapi.UpdateApiKeyRequest, idempotencyKey string) (*gatewayapi.ApiKey, error) {
	resp, err := c.api.UpdateKeyWithResponse(ctx, keyID, &gatewayapi.UpdateKeyParams{IdempotencyKey: idempotencyKey}, body)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	return resp.JSON200, nil
}

// Rotate issues a new secret for a key.
func (c *Client) Rotate(ctx context.Context, keyID string, body gatewayapi.RotateApiKeyRequest, idempotencyKey string) (*Rotated, error) {
	resp, err := c.api.RotateKeyWithResponse(ctx, keyID, &gatewayapi.RotateKeyParams{IdempotencyKey: idempotencyKey}, body)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	key, err := recordOf(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Rotated{Key: key, Secret: resp.JSON200.Secret}, nil
}

// Revoke stops a key for good.
func (c *Client) Revoke(ctx context.Context, keyID string, body gatewayapi.VersionedRequest, idempotencyKey string) error {
	resp, err := c.api.RevokeKeyWithResponse(ctx, keyID, &gatewayapi.RevokeKeyParams{IdempotencyKey: idempotencyKey}, body)
	if err != nil {
		return c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return errorFrom(resp.StatusCode(), resp.Body)
	}
	return nil
}

// Whoami names the owner of the provisioning key; nil when the gateway lacks the extension.
func (c *Client) Whoami(ctx context.Context) (*gatewayapi.Principal, error) {
	resp, err := c.api.WhoamiWithResponse(ctx)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.StatusCode() == http.StatusNotFound {
		return nil, nil
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	return resp.JSON200, nil
}

// Models lists the models the gateway serves. Asked anonymously: the endpoint takes no credential
// or an API key, and refuses a provisioning key (403 wrong_key_kind).
func (c *Client) Models(ctx context.Context) ([]gatewayapi.Model, error) {
	resp, err := c.api.ModelsWithResponse(ctx, func(_ context.Context, req *http.Request) error {
		req.Header.Del("Authorization")
		return nil
	})
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.JSON200 == nil {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	return resp.JSON200.Data, nil
}

// recordOf reads the key record of an answer that also holds a secret (create, rotate): one
// record type for every answer, so the provider reads keys in one place.
func recordOf(body []byte) (gatewayapi.ApiKey, error) {
	var key gatewayapi.ApiKey
	if err := json.Unmarshal(body, &key); err != nil {
		return key, fmt.Errorf("the gateway's answer is not a key record: %w", err)
	}
	return key, nil
}

// unanswered classifies an error of the generated client: an answer it could not read (a proxy's
// page where JSON was due, say) is not a connection that failed.
func (c *Client) unanswered(err error) error {
	var apiErr *APIError
	var syntax *json.SyntaxError
	var wrongType *json.UnmarshalTypeError
	var badTime *time.ParseError
	switch {
	case errors.As(err, &apiErr):
		return err
	case errors.As(err, &syntax), errors.As(err, &wrongType), errors.As(err, &badTime):
		return &APIError{Code: "unreadable_answer", Message: fmt.Sprintf("the gateway at %s answered with a body that is not the account API's JSON (%v)", c.BaseURL, err)}
	}
	return &ConnectionError{BaseURL: c.BaseURL, Cause: err}
}
