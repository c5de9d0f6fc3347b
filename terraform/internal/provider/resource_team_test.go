package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const (
	searchTeamAddress   = "gatewaykeys_team.search"
	partnersTeamAddress = "gatewaykeys_team.partners"
	teamKeyAddress      = "gatewaykeys_api_key.batch"
)

// teamsConfig declares two teams and a key in one of them; the search team's monthly limit, the
// key's team and an imported team filled in.
func teamsConfig(monthly, keyTeam, extra string) string {
	return fmt.Sprintf(`
resource "gatewaykeys_team" "search" {
  name              = "acc-search"
  spend_policy      = { windows = [{ limit_units = "50", reset_period = "daily" }, { limit_units = %q, reset_period = "monthly" }] }
  rate_limit_policy = { requests_per_minute = 600 }
  budget_alert_thresholds = [0.8, 1]
}

resource "gatewaykeys_team" "partners" {
  name         = "acc-partners"
  spend_policy = { limit_units = "200", reset_period = "monthly" }
  model_policy = { mode = "allowList", model_ids = ["echo-1"] }
}

resource "gatewaykeys_api_key" "batch" {
  name    = "acc-team-batch"
  team_id = gatewaykeys_team.%s.team_id
  # One window written as windows: the gateway keeps it in the single form, and no plan shows a change.
  spend_policy = { windows = [{ limit_units = "20", reset_period = "daily" }] }
}
%s`, monthly, keyTeam, extra)
}

// Teams and a key's team_id through tofu: create (the windows on the gateway, ordered), an empty
// plan, the search team's monthly limit and the key's team changed in place (update, never
// replace), a team made outside imported with an empty plan after it, and destroy — the key first,
// then the teams (the gateway refuses to delete a team with keys).
func TestAccTeam(t *testing.T) {
	requireEnvironment(t)
	var searchID, partnersID, keyID, legacyID string
	same := func(id *string) knownvalue.Check {
		return knownvalue.StringFunc(func(value string) error {
			if value != *id {
				return fmt.Errorf("id is %s, want %s (in place, never replaced)", value, *id)
			}
			return nil
		})
	}
	legacy := `
resource "gatewaykeys_team" "legacy" {
  name         = "acc-legacy"
  spend_policy = { limit_units = "10", reset_period = "daily" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkRevoked(&keyID), func(*terraform.State) error {
			for _, id := range []string{searchID, partnersID, legacyID} {
				if _, err := gateway(t).GetTeam(context.Background(), id); !account.Is(err, "team_not_found") {
					return fmt.Errorf("destroy left team %s (read: %v); want it deleted", id, err)
				}
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: teamsConfig("1000", "search", ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					captureAttribute(searchTeamAddress, "team_id", &searchID),
					captureAttribute(partnersTeamAddress, "team_id", &partnersID),
					captureAttribute(teamKeyAddress, "key_id", &keyID),
					resource.TestCheckResourceAttr(searchTeamAddress, "version", "1"),
					// Read when the team was made, before its key joined: a reading, never a change.
					resource.TestCheckResourceAttr(searchTeamAddress, "key_count", "0"),
					resource.TestCheckResourceAttr(searchTeamAddress, "spend_windows.#", "2"),
					resource.TestCheckResourceAttr(searchTeamAddress, "spend_windows.1.reset_period", "monthly"),
					resource.TestCheckResourceAttr(searchTeamAddress, "spend_windows.1.spent_units", "0"),
					func(*terraform.State) error { return expectGatewayTeam(t, searchID, "50:daily,1000:monthly", 1) },
					func(*terraform.State) error { return expectKeyTeam(t, keyID, searchID) },
				),
			},
			{Config: teamsConfig("1000", "search", ""), PlanOnly: true},
			{
				Config: teamsConfig("1500", "partners", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(searchTeamAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(teamKeyAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(partnersTeamAddress, plancheck.ResourceActionNoop),
					plancheck.ExpectKnownValue(searchTeamAddress, tfjsonpath.New("id"), same(&searchID)),
					plancheck.ExpectKnownValue(teamKeyAddress, tfjsonpath.New("key_id"), same(&keyID)),
					plancheck.ExpectUnknownValue(searchTeamAddress, tfjsonpath.New("version")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(searchTeamAddress, "version", "2"),
					func(*terraform.State) error { return expectGatewayTeam(t, searchID, "50:daily,1500:monthly", 2) },
					func(*terraform.State) error { return expectKeyTeam(t, keyID, partnersID) },
				),
			},
			{
				PreConfig: func() {
					created, err := gateway(t).CreateTeam(context.Background(), map[string]any{"name": "acc-legacy", "spendPolicy": map[string]string{"limitUnits": "10", "resetPeriod": "daily"}}, "acc-legacy-team-"+t.Name())
					if err != nil {
						t.Fatalf("creating the team to import: %v", err)
					}
					legacyID = created.Team.TeamID
				},
				Config:             teamsConfig("1500", "partners", legacy),
				ResourceName:       "gatewaykeys_team.legacy",
				ImportState:        true,
				ImportStatePersist: true,
				ImportStateIdFunc:  func(*terraform.State) (string, error) { return legacyID, nil },
			},
			{Config: teamsConfig("1500", "partners", legacy), PlanOnly: true},
		},
	})
}

// expectGatewayTeam checks a team's windows ("limit:period,…" in the gateway's order) and version on the gateway.
func expectGatewayTeam(t *testing.T, teamID, windows string, version int64) error {
	team, err := gateway(t).GetTeam(context.Background(), teamID)
	if err != nil {
		return err
	}
	var got []string
	for _, window := range spendWindowsOf(team.SpendPolicy) {
		got = append(got, window.LimitUnits+":"+window.ResetPeriod)
	}
	if strings.Join(got, ",") != windows || team.Version != version {
		return fmt.Errorf("team %s has windows %v at version %d; want %s at version %d", teamID, got, team.Version, windows, version)
	}
	return nil
}

// expectKeyTeam checks which team a key belongs to on the gateway.
func expectKeyTeam(t *testing.T, keyID, teamID string) error {
	record, err := gateway(t).Get(context.Background(), keyID)
	if err != nil {
		return err
	}
	if team, _ := record.TeamId.Get(); team != teamID {
		return fmt.Errorf("key %s is in team %q; want %s", keyID, team, teamID)
	}
	union, err := record.SpendPolicy.Get()
	if err != nil {
		return fmt.Errorf("key %s has no spend policy on the gateway", keyID)
	}
	spend, err := recordSpendPolicy(union)
	if err != nil || spend.LimitUnits != "20" || spend.ResetPeriod != "daily" || spend.Windows != nil {
		return fmt.Errorf("key %s has spend policy %+v (%v); want 20 a day in the single form", keyID, spend, err)
	}
	return nil
}
