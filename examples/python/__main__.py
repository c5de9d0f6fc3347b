"""Gateway API keys from Python: the native gatewaykeys plugin through its generated SDK.

Every policy a key has, in Pulumi's Python spelling (snake_case arguments; each nested policy as an
args class or a plain dict). The provider settings come from stack config (gatewaykeys:baseUrl and
the secret gatewaykeys:provisioningKey) or GATEWAY_BASE_URL / GATEWAY_PROVISIONING_KEY.
"""

import pulumi
import pulumi_gatewaykeys as gatewaykeys

config = pulumi.Config()

# A service's key: every policy, rotated every 30 days, and on demand when `rotation` changes; the
# replaced secret keeps working for an hour, so the service moves over with no request refused.
service = gatewaykeys.ApiKey(
    "service",
    spend_policy=gatewaykeys.SpendPolicyArgs(limit_units=config.require("limitUnits"), reset_period="monthly"),
    rate_limit_policy=gatewaykeys.RateLimitPolicyArgs(requests_per_minute=600, max_concurrent_requests=8),
    model_policy=gatewaykeys.ModelPolicyArgs(mode="allowList", model_ids=["echo-1"]),
    logging_policy={"store_request": False, "store_response": False, "retention_days": 7},
    labels={"team": "search", "env": pulumi.get_stack()},
    expires_at="2099-01-01T00:00:00Z",
    rotate_after="30d",
    rotation_grace_period="1h",
    rotation_trigger=config.require("rotation"),
)

pulumi.export("service_key_id", service.key_id)
pulumi.export("service_version", service.version)
pulumi.export("service_hint", service.hint)
# A Pulumi secret: encrypted in the state, shown as [secret] (`pulumi stack output --show-secrets`).
pulumi.export("service_secret", service.secret)

# A key made elsewhere, brought under the stack with `pulumi import` (see README.md), then declared
# here with the values the import printed.
legacy_key_id = config.get("legacyKeyId")
if legacy_key_id:
    legacy = gatewaykeys.ApiKey(
        "legacy",
        name="legacy",
        spend_policy=gatewaykeys.SpendPolicyArgs(limit_units="50"),
    )
    pulumi.export("legacy_key_id", legacy.key_id)
    pulumi.export("legacy_secret_known", legacy.secret_known)
