import { PolicyPack } from "@pulumi/policy";
import { API_KEY_POLICIES } from "./rules";

// `pulumi preview --policy-pack policy/` loads this module, which serves the rules to the engine.
// Each rule's level (mandatory, advisory, disabled) and settings come from --policy-pack-config.
new PolicyPack("gateway-keys", { policies: API_KEY_POLICIES });
