output "search_key_id" {
  value = gatewaykeys_api_key.search.key_id
}

output "search_secret" {
  description = "Hand it to the search service (e.g. into a secret store); `tofu output -raw search_secret`."
  value       = gatewaykeys_api_key.search.secret
  sensitive   = true
}

output "contractor_key_id" {
  value = gatewaykeys_api_key.contractor.key_id
}
