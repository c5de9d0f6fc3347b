import { z } from "zod";

/**
 * `GET /v1/account/whoami` (an extension of ours): the owner and scopes of the calling provisioning
 * key. Any scope may call it. Clients use it to tell "this key is gone" from "this key belongs to
 * another owner", which a 404 alone cannot say.
 */
export const Principal = z.object({
  object: z.literal("provisioning_key"),
  ownerId: z.string(),
  scopes: z.array(z.string()),
  /** Prefix and last four characters of the calling provisioning key. */
  hint: z.string(),
});
export type Principal = z.infer<typeof Principal>;
