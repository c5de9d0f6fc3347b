package provider

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ResourceWithConfigure   = (*teamResource)(nil)
	_ resource.ResourceWithImportState = (*teamResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*teamResource)(nil)
)

// teamResource is gatewaykeys_team: a team of the account API, whose spend, rate limits and model
// ceiling hold for every key that names it. Its schema is in resource_team_schema.go, its fields in
// resource_team_model.go.
type teamResource struct {
	client *account.Client
}

func newTeamResource() resource.Resource { return &teamResource{} }

func (r *teamResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_team"
}

func (r *teamResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if client, ok := req.ProviderData.(*account.Client); ok {
		r.client = client
	}
}

// ModifyPlan keeps the version and the readings when nothing the gateway holds changes (a
// respelled amount, one window written either way): they are known after apply only when a PATCH
// is sent, whose answer reads them anew (key_count too: a key may join or leave in the same apply).
func (r *teamResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return
	}
	var plan, prior teamModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Version, plan.KeyCount, plan.SpendWindows = prior.Version, prior.KeyCount, prior.SpendWindows
	changes := !allKnown(ctx, plan.Name, plan.Labels, plan.SpendPolicy, plan.RateLimitPolicy, plan.ModelPolicy, plan.BudgetAlertThresholds)
	if !changes {
		_, changed := teamChanges(ctx, plan, prior, &resp.Diagnostics)
		changes = len(changed) > 0
	}
	if changes {
		plan.Version, plan.KeyCount, plan.SpendWindows = types.Int64Unknown(), types.Int64Unknown(), types.ListUnknown(plan.SpendWindows.ElementType(ctx))
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// Create makes the team. Its Idempotency-Key is drawn once per apply and kept across the client's
// retries, so a retried call never makes a second team (as gatewaykeys_webhook's: nothing names a
// team across applies).
func (r *teamResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan teamModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	fields, diags := declaredTeam(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := teamCreateRequest(fields)
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		resp.Diagnostics.AddError("No randomness", err.Error())
		return
	}
	created, err := r.client.CreateTeam(ctx, body, account.IdempotencyKey("team-create", body, hex.EncodeToString(nonce)))
	if err != nil {
		summary, detail := describeResourceFailure("team", fields.Name, "create", err, 0)
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	next, diags := teamStateOf(ctx, &created.Team, plan)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// Read refreshes the state from the gateway, so a change made outside Terraform shows in the next
// plan; a deleted team leaves the state (one the configured credentials cannot see because they are
// another owner's does not).
func (r *teamResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var prior teamModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueString()
	record, err := r.client.GetTeam(ctx, id)
	if account.Is(err, "team_not_found") {
		if requireOwner(ctx, r.client, "team", id, prior.OwnerID.ValueString(), &resp.Diagnostics) {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	if err != nil {
		summary, detail := describeResourceFailure("team", id, "read", err, prior.Version.ValueInt64())
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	next, diags := teamStateOf(ctx, record, prior)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// Update applies every changed field with one PATCH at the state's version, with an
// Idempotency-Key derived from the team and the body.
func (r *teamResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior teamModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueString()
	declared, changed := teamChanges(ctx, plan, prior, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if len(changed) == 0 {
		// Only a spelling changed: no request.
		next := plan
		next.Version, next.KeyCount, next.SpendWindows = prior.Version, prior.KeyCount, prior.SpendWindows
		resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
		return
	}
	version := prior.Version.ValueInt64()
	body := teamChangeRequest(version, declared, changed)
	record, err := r.client.UpdateTeam(ctx, id, body, account.IdempotencyKey("team-change", id, body))
	if err != nil {
		summary, detail := describeResourceFailure("team", id, "change", err, version)
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	next, diags := teamStateOf(ctx, record, plan)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, next)...)
}

// teamChanges is what a plan declares and which of those fields differ from the state's.
func teamChanges(ctx context.Context, plan, prior teamModel, diags *diag.Diagnostics) (teamFields, []string) {
	declared, d := declaredTeam(ctx, plan)
	diags.Append(d...)
	current, d := declaredTeam(ctx, prior)
	diags.Append(d...)
	return declared, changedTeamFields(declared, current)
}

// Delete deletes the team at the state's version. The gateway refuses while keys belong to it
// (team_not_empty, naming them); one already gone counts as done, unless the configured credentials
// are another owner's.
func (r *teamResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var prior teamModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !requireClient(r.client, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	id := prior.ID.ValueString()
	err := r.client.DeleteTeam(ctx, id, prior.Version.ValueInt64(), account.IdempotencyKey("team-delete", id))
	switch {
	case err == nil:
	case account.Is(err, "team_not_found"):
		requireOwner(ctx, r.client, "team", id, prior.OwnerID.ValueString(), &resp.Diagnostics)
	case account.Is(err, "team_not_empty"):
		resp.Diagnostics.AddError("Team still has keys", "Team "+id+" was not deleted: "+err.Error()+
			" Move those keys to another team (their team_id) or destroy them first, then apply again.")
	default:
		summary, detail := describeResourceFailure("team", id, "delete", err, prior.Version.ValueInt64())
		resp.Diagnostics.AddError(summary, detail)
	}
}

// ImportState adopts an existing team by its id: the refresh that follows reads everything else.
func (r *teamResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
