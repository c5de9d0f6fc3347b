import { fromIni } from "@aws-sdk/credential-provider-ini";
import type { AwsCredentialIdentity } from "@smithy/types";
import { GatewayError } from "../../../errors";

/**
 * Where a Bedrock provider's AWS credentials come from, in the order the AWS SDKs use:
 * - a profile, when the provider's config names one (`profile`) or `AWS_PROFILE` does: read from
 *   the shared files (`AWS_SHARED_CREDENTIALS_FILE` / `AWS_CONFIG_FILE`, else `~/.aws/credentials`
 *   and `~/.aws/config`) by the AWS SDK's own loader, which also assumes a role a profile names;
 * - else the environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`;
 * - else the `default` profile.
 * Credentials that expire are fetched again before they do.
 */
export interface BedrockCredentials {
  /** The credentials to sign the next request with. */
  current(): Promise<AwsCredentialIdentity>;
  /** The secret parts of the credentials in use: never in a log or a client's error. */
  secrets(): string[];
}

/** Credentials with less than this left are fetched again (AWS's own SDKs refresh five minutes ahead). */
const REFRESH_MARGIN_MS = 5 * 60_000;

export function bedrockCredentials(env: NodeJS.ProcessEnv, provider: string, profile: string | undefined): BedrockCredentials {
  const named = profile ?? env.AWS_PROFILE;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (named === undefined && (accessKeyId !== undefined) !== (secretAccessKey !== undefined)) {
    throw new Error(`provider ${provider}: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together (or neither, to use a profile)`);
  }
  if (named === undefined && accessKeyId && secretAccessKey) {
    const fixed: AwsCredentialIdentity = { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }) };
    return { current: async () => fixed, secrets: () => secretsOf(fixed) };
  }
  const profileName = named ?? "default";
  const load = fromIni({
    profile: profileName,
    ...(env.AWS_SHARED_CREDENTIALS_FILE && { filepath: env.AWS_SHARED_CREDENTIALS_FILE }),
    ...(env.AWS_CONFIG_FILE && { configFilepath: env.AWS_CONFIG_FILE }),
  });
  let held: AwsCredentialIdentity | undefined;
  let loading: Promise<AwsCredentialIdentity> | undefined;
  const fresh = (credentials: AwsCredentialIdentity) => credentials.expiration === undefined || credentials.expiration.getTime() - Date.now() > REFRESH_MARGIN_MS;
  return {
    async current() {
      if (held && fresh(held)) return held;
      loading ??= load()
        .then((credentials) => (held = credentials))
        .catch(() => {
          // The loader's message may quote the file; it says no more than this.
          throw new GatewayError("upstream_failed", `The provider ${provider} has no usable AWS credentials: the profile ${JSON.stringify(profileName)} could not be read from the shared credentials files.`);
        })
        .finally(() => (loading = undefined));
      return loading;
    },
    secrets: () => (held ? secretsOf(held) : []),
  };
}

function secretsOf(credentials: AwsCredentialIdentity): string[] {
  return [credentials.secretAccessKey, ...(credentials.sessionToken ? [credentials.sessionToken] : [])];
}
