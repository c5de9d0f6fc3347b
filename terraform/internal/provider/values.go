package provider

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// sameInstant reports whether two RFC 3339 texts name one instant ("2027-01-01T01:00:00+01:00"
// and the gateway's "2027-01-01T00:00:00.000Z" do), to the millisecond the gateway keeps.
func sameInstant(a, b string) bool {
	at, errA := time.Parse(time.RFC3339Nano, a)
	bt, errB := time.Parse(time.RFC3339Nano, b)
	return errA == nil && errB == nil && at.Truncate(time.Millisecond).Equal(bt.Truncate(time.Millisecond))
}

// sameUnits reports whether two decimal strings are one amount ("100.50" and the gateway's "100.5").
func sameUnits(a, b string) bool {
	ar, okA := new(big.Rat).SetString(a)
	br, okB := new(big.Rat).SetString(b)
	return okA && okB && ar.Cmp(br) == 0
}

// instantValidator accepts an RFC 3339 date and time with a zone.
type instantValidator struct{}

func (instantValidator) Description(context.Context) string {
	return "an RFC 3339 date and time with a zone, e.g. 2027-01-01T00:00:00Z"
}
func (v instantValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v instantValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid date and time",
			fmt.Sprintf("%s is %q; expected %s.", req.Path, req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}

// positiveUnits refuses an amount of zero ("0", "0.000").
type positiveUnits struct{}

func (positiveUnits) Description(context.Context) string               { return "must be greater than 0" }
func (v positiveUnits) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (positiveUnits) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if amount, ok := new(big.Rat).SetString(req.ConfigValue.ValueString()); ok && amount.Sign() <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid spend limit", fmt.Sprintf("%s must be greater than 0.", req.Path))
	}
}
