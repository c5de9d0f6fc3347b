# The search team's production key: a monthly budget, rate limits, request logging for a week,
# only the chat models the gateway serves, labels to bill it by, and a secret that rotates in place
# every 30 days (or when rotation_trigger changes), the old one working for an hour more.
data "gatewaykeys_models" "chat" {
  family = "chat"
}

resource "gatewaykeys_api_key" "search" {
  name = var.key_name
  # Unique to this resource: an apply interrupted after the gateway made the key takes it over on
  # the next run (docs/terraform.md#after-a-crash). Left out, it would be "terraform:<name>".
  client_reference = "terraform:${terraform.workspace}/search"

  spend_policy = {
    limit_units  = var.monthly_budget
    reset_period = "monthly"
  }
  rate_limit_policy = {
    requests_per_minute     = 600
    max_concurrent_requests = 20
  }
  logging_policy = {
    store_request  = true
    retention_days = 7
  }
  model_policy = {
    mode      = "allowList"
    model_ids = data.gatewaykeys_models.chat.ids
  }
  labels = {
    team = "search"
    env  = "production"
  }

  rotation_trigger      = var.rotation_trigger
  rotate_after          = "30d"
  rotation_grace_period = "1h"
}

# A contractor's key that stops working on a date; extending it later is an in-place update.
resource "gatewaykeys_api_key" "contractor" {
  name       = "contractor-q1"
  expires_at = var.contractor_until
  spend_policy = {
    limit_units = "25"
  }
  labels = { team = "search", kind = "contractor" }
}
