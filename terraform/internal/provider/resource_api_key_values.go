package provider

// The values a key's attributes take beyond plain strings: durations (rotate_after,
// rotation_grace_period), instants (expires_at) and amounts (limit_units). How each is read, how
// two spellings of one value compare equal, and the validators that name what a bad one should be.

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

var durationPattern = regexp.MustCompile(`^(\d{1,9})([smhd])$`)

var durationUnits = map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}

// parseDuration reads a duration as the Pulumi provider writes it: a whole number and a unit,
// "30d", "12h", "90m" or "45s" (Go's own syntax has no days, which schedules are counted in).
func parseDuration(text string) (time.Duration, bool) {
	match := durationPattern.FindStringSubmatch(text)
	if match == nil {
		return 0, false
	}
	count, err := strconv.ParseInt(match[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(count) * durationUnits[match[2]], true
}

// durationValidator accepts durations of the given units between min and max, saying so otherwise.
type durationValidator struct {
	units    string
	min, max time.Duration
	expected string
}

// rotateAfterValidator: from one hour to ten years, in minutes, hours or days.
var rotateAfterValidator = durationValidator{
	units: "mhd", min: time.Hour, max: 3650 * 24 * time.Hour,
	expected: `a duration such as "30d", "12h" or "90m" (a whole number of days, hours or minutes), from 1h to 3650d`,
}

// gracePeriodValidator: up to the gateway's seven days.
var gracePeriodValidator = durationValidator{
	units: "smhd", min: 0, max: 7 * 24 * time.Hour,
	expected: `a duration such as "1h", "30m" or "45s" (a whole number of days, hours, minutes or seconds), at most 7d`,
}

func (v durationValidator) Description(context.Context) string             { return "expected " + v.expected }
func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	text := req.ConfigValue.ValueString()
	length, ok := parseDuration(text)
	unit := ""
	if ok {
		unit = text[len(text)-1:]
	}
	if !ok || !strings.Contains(v.units, unit) || length < v.min || length > v.max {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", fmt.Sprintf("%s is %q; expected %s.", req.Path, text, v.expected))
	}
}

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
