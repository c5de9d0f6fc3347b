package provider

import (
	"context"
	"fmt"
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
