terraform {
  required_version = ">= 1.6"
  required_providers {
    gatewaykeys = {
      source  = "gateway-keys/gatewaykeys"
      version = "~> 0.1"
    }
  }
  # OpenTofu encrypts state and plan files when you give it a key (docs/terraform.md#the-secret-in-state):
  # uncomment, and set TF_VAR_state_passphrase (16 characters or more).
  # encryption {
  #   key_provider "pbkdf2" "passphrase" { passphrase = var.state_passphrase }
  #   method "aes_gcm" "state" { keys = key_provider.pbkdf2.passphrase }
  #   state { method = method.aes_gcm.state }
  #   plan { method = method.aes_gcm.state }
  # }
}

# The gateway and the owner's provisioning key come from GATEWAY_BASE_URL and
# GATEWAY_PROVISIONING_KEY; set them here instead with base_url and provisioning_key (from a
# sensitive variable, never a literal).
provider "gatewaykeys" {}
