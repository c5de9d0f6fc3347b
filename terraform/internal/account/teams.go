package account

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/gatewayapi"
)

// Team is a team record of the account API, read into plain Go values: the generated client's
// types read a spend policy as a union of its two forms, which every caller would take apart again.
type Team struct {
	TeamID                string            `json:"teamId"`
	OwnerID               string            `json:"ownerId"`
	Name                  string            `json:"name"`
	Labels                map[string]string `json:"labels"`
	SpendPolicy           *SpendPolicy      `json:"spendPolicy"`
	RateLimitPolicy       *RateLimitPolicy  `json:"rateLimitPolicy"`
	ModelPolicy           ModelPolicy       `json:"modelPolicy"`
	BudgetAlertThresholds []float64         `json:"budgetAlertThresholds"`
	Version               int64             `json:"version"`
	SpendWindows          []SpendWindowNow  `json:"spendWindows"`
	KeyCount              int64             `json:"keyCount"`
	CreatedAt             string            `json:"createdAt"`
	UpdatedAt             string            `json:"updatedAt"`
}

// SpendPolicy is a spend policy in either of its forms: one window (LimitUnits, ResetPeriod) or
// several (Windows).
type SpendPolicy struct {
	LimitUnits  string        `json:"limitUnits,omitempty"`
	Currency    string        `json:"currency,omitempty"`
	ResetPeriod string        `json:"resetPeriod,omitempty"`
	Windows     []SpendWindow `json:"windows,omitempty"`
}

// SpendWindow is one window of a spend policy's windows form.
type SpendWindow struct {
	LimitUnits  string `json:"limitUnits"`
	ResetPeriod string `json:"resetPeriod"`
}

// SpendWindowNow is one window of a spend policy as it stands: its limit, what was spent in it, and when it began and resets.
type SpendWindowNow struct {
	LimitUnits  string  `json:"limitUnits"`
	ResetPeriod string  `json:"resetPeriod"`
	SpentUnits  string  `json:"spentUnits"`
	StartedAt   string  `json:"startedAt"`
	ResetsAt    *string `json:"resetsAt"`
}

// RateLimitPolicy is a rate limit policy; each limit optional.
type RateLimitPolicy struct {
	RequestsPerMinute     *int64 `json:"requestsPerMinute,omitempty"`
	TokensPerMinute       *int64 `json:"tokensPerMinute,omitempty"`
	MaxConcurrentRequests *int64 `json:"maxConcurrentRequests,omitempty"`
}

// ModelPolicy is a model policy: "all", or "allowList" of ModelIDs.
type ModelPolicy struct {
	Mode     string   `json:"mode"`
	ModelIDs []string `json:"modelIds"`
}

// CreatedTeam is a team create's answer, and whether the gateway replayed the answer of an earlier identical create.
type CreatedTeam struct {
	Team     Team
	Replayed bool
}

// CreateTeam makes a team. body is the create request (contract CreateTeamRequest).
func (c *Client) CreateTeam(ctx context.Context, body any, idempotencyKey string) (*CreatedTeam, error) {
	reader, err := jsonBody(body)
	if err != nil {
		return nil, err
	}
	resp, err := c.api.CreateTeamWithBodyWithResponse(ctx, &gatewayapi.CreateTeamParams{IdempotencyKey: idempotencyKey}, "application/json", reader)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.StatusCode() != http.StatusCreated {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	team, err := teamOf(resp.Body)
	if err != nil {
		return nil, err
	}
	return &CreatedTeam{Team: team, Replayed: resp.HTTPResponse.Header.Get("Idempotent-Replayed") == "true"}, nil
}

// GetTeam reads one team; an unknown one (or another owner's) is code team_not_found.
func (c *Client) GetTeam(ctx context.Context, teamID string) (*Team, error) {
	resp, err := c.api.GetTeamWithResponse(ctx, teamID)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.StatusCode() != http.StatusOK {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	team, err := teamOf(resp.Body)
	return &team, err
}

// UpdateTeam changes a team at the version the body names (contract UpdateTeamRequest).
func (c *Client) UpdateTeam(ctx context.Context, teamID string, body any, idempotencyKey string) (*Team, error) {
	reader, err := jsonBody(body)
	if err != nil {
		return nil, err
	}
	resp, err := c.api.UpdateTeamWithBodyWithResponse(ctx, teamID, &gatewayapi.UpdateTeamParams{IdempotencyKey: idempotencyKey}, "application/json", reader)
	if err != nil {
		return nil, c.unanswered(err)
	}
	if resp.StatusCode() != http.StatusOK {
		return nil, errorFrom(resp.StatusCode(), resp.Body)
	}
	team, err := teamOf(resp.Body)
	return &team, err
}

// DeleteTeam deletes a team at version; the gateway refuses (team_not_empty) while keys belong to it.
func (c *Client) DeleteTeam(ctx context.Context, teamID string, version int64, idempotencyKey string) error {
	reader, err := jsonBody(map[string]int64{"expectedVersion": version})
	if err != nil {
		return err
	}
	resp, err := c.api.DeleteTeamWithBodyWithResponse(ctx, teamID, &gatewayapi.DeleteTeamParams{IdempotencyKey: idempotencyKey}, "application/json", reader)
	if err != nil {
		return c.unanswered(err)
	}
	if resp.StatusCode() != http.StatusOK {
		return errorFrom(resp.StatusCode(), resp.Body)
	}
	return nil
}

func jsonBody(body any) (*bytes.Reader, error) {
	text, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("a request body that is not JSON: %w", err)
	}
	return bytes.NewReader(text), nil
}

// teamOf reads a team record.
func teamOf(body []byte) (Team, error) {
	var team Team
	if err := json.Unmarshal(body, &team); err != nil {
		return team, fmt.Errorf("the gateway's answer is not a team record: %w", err)
	}
	return team, nil
}
