package provider

import (
	"testing"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
)

// One window written as windows is the gateway's single form; several are one policy in any
// order; a respelled amount is no change; another limit or period is.
func TestASpendPolicyIsTheSameWhicheverFormAndOrderItIsWrittenIn(t *testing.T) {
	single := &account.SpendPolicy{LimitUnits: "100", Currency: "unit", ResetPeriod: "daily"}
	oneWindow := &account.SpendPolicy{Currency: "unit", Windows: []account.SpendWindow{{LimitUnits: "100.0", ResetPeriod: "daily"}}}
	if !sameSpendPolicy(single, oneWindow) {
		t.Fatalf("one window written as windows differs from the single form")
	}
	if got := normalSpendPolicy(oneWindow); got.LimitUnits != "100.0" || got.ResetPeriod != "daily" || got.Windows != nil {
		t.Fatalf("one window normalises to %+v; want the single form", got)
	}
	monthlyFirst := &account.SpendPolicy{Currency: "unit", Windows: []account.SpendWindow{{LimitUnits: "1000", ResetPeriod: "monthly"}, {LimitUnits: "50", ResetPeriod: "daily"}}}
	dailyFirst := &account.SpendPolicy{Currency: "unit", Windows: []account.SpendWindow{{LimitUnits: "50", ResetPeriod: "daily"}, {LimitUnits: "1000", ResetPeriod: "monthly"}}}
	if !sameSpendPolicy(monthlyFirst, dailyFirst) {
		t.Fatalf("two windows in another order differ")
	}
	if got := normalSpendPolicy(monthlyFirst).Windows; got[0].ResetPeriod != "daily" || got[1].ResetPeriod != "monthly" {
		t.Fatalf("windows normalise to %+v; want daily then monthly", got)
	}
	raised := &account.SpendPolicy{Currency: "unit", Windows: []account.SpendWindow{{LimitUnits: "50", ResetPeriod: "daily"}, {LimitUnits: "1500", ResetPeriod: "monthly"}}}
	if sameSpendPolicy(dailyFirst, raised) || sameSpendPolicy(single, dailyFirst) || sameSpendPolicy(nil, single) {
		t.Fatalf("a changed limit or window count reads as no change")
	}
	if request := spendPolicyRequest(&account.SpendPolicy{LimitUnits: "5", Currency: "unit", ResetPeriod: "never"}); request.ResetPeriod != "" {
		t.Fatalf("a lifetime cap's request carries resetPeriod %q; want it left out", request.ResetPeriod)
	}
}

// A record's spend policy reads in either form, whatever JSON type holds it.
func TestARecordSpendPolicyReadsInEitherForm(t *testing.T) {
	windows, err := recordSpendPolicy(map[string]any{"currency": "unit", "windows": []any{map[string]any{"limitUnits": "50", "resetPeriod": "daily"}}})
	if err != nil || len(windows.Windows) != 1 || windows.Windows[0].LimitUnits != "50" {
		t.Fatalf("windows form read as %+v (%v)", windows, err)
	}
	single, err := recordSpendPolicy(map[string]any{"currency": "unit", "limitUnits": "12.5"})
	if err != nil || single.LimitUnits != "12.5" || single.ResetPeriod != "never" {
		t.Fatalf("single form read as %+v (%v); want a lifetime cap of 12.5", single, err)
	}
	if none, err := recordSpendPolicy(nil); none != nil || err != nil {
		t.Fatalf("null read as %+v (%v); want none", none, err)
	}
}
