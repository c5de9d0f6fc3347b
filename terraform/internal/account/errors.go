package account

import (
	"encoding/json"
	"errors"
	"fmt"
)

// APIError is an answer of the gateway in its error envelope: a status and a stable code
// (docs/api/errors.md#errors), with the fields some codes carry.
type APIError struct {
	Status  int
	Code    string
	Message string
	// Param names the request field a validation error is about, when there is one.
	Param string
	// KeyID is the key holding the reference, on client_reference_in_use.
	KeyID string
	// CurrentVersion is the key's version now, on a stale-version conflict.
	CurrentVersion int
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return e.Message
	}
	return fmt.Sprintf("the gateway answered %d %s: %s", e.Status, e.Code, e.Message)
}

// Is reports whether err is an APIError with this code.
func Is(err error, code string) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == code
}

// errorFrom reads an error answer. A body that is not the envelope (a proxy's page, say) still
// gives an error that names the status, never the body itself (it could echo a credential).
func errorFrom(status int, body []byte) error {
	var envelope struct {
		Error struct {
			Code           string  `json:"code"`
			Message        string  `json:"message"`
			Param          *string `json:"param"`
			KeyID          *string `json:"keyId"`
			CurrentVersion *int    `json:"currentVersion"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil || envelope.Error.Code == "" {
		return &APIError{Status: status, Code: "unexpected_answer", Message: fmt.Sprintf("an answer that is not the gateway's error envelope (HTTP %d)", status)}
	}
	e := envelope.Error
	out := &APIError{Status: status, Code: e.Code, Message: e.Message}
	if e.Param != nil {
		out.Param = *e.Param
	}
	if e.KeyID != nil {
		out.KeyID = *e.KeyID
	}
	if e.CurrentVersion != nil {
		out.CurrentVersion = *e.CurrentVersion
	}
	return out
}

// ConnectionError is a call that got no answer: the gateway may or may not have acted on it.
type ConnectionError struct {
	BaseURL string
	Cause   error
}

func (e *ConnectionError) Error() string {
	return fmt.Sprintf("the gateway at %s could not be reached (%v)", e.BaseURL, e.Cause)
}

func (e *ConnectionError) Unwrap() error { return e.Cause }
