import { z } from "zod";
import { ANTHROPIC_KIND, AnthropicProviderConfig } from "./anthropic";
import { AZURE_OPENAI_KIND, AzureOpenAIProviderConfig } from "./azure-openai";
import { BEDROCK_KIND, BedrockProviderConfig } from "./bedrock";
import type { ForwardedFamily, OpenedProvider, ProviderKind } from "./common";
import { OPENAI_KIND, OpenAIProviderConfig } from "./openai";
import { VERTEX_KIND, VertexProviderConfig } from "./vertex";

export type { ForwardedFamily, OpenedProvider } from "./common";

/**
 * Every kind of provider the config can name, by its `kind`. A new kind is one module in this
 * folder (its config schema and endpoint), its entry here and its schema in `ProviderConfig`.
 */
const KINDS = {
  openai: OPENAI_KIND,
  anthropic: ANTHROPIC_KIND,
  "azure-openai": AZURE_OPENAI_KIND,
  vertex: VERTEX_KIND,
  bedrock: BEDROCK_KIND,
} satisfies Record<string, ProviderKind<{ kind: string }>>;

type Kinds = typeof KINDS;
export type ProviderKindName = keyof Kinds;

const KIND_NAMES = Object.keys(KINDS) as ProviderKindName[];
const kindList = KIND_NAMES.map((name) => JSON.stringify(name)).join(", ");

/**
 * A provider in `--config`: one of the kinds, told apart by `kind`. A provider written before
 * kinds existed (`wire: openai` or `wire: anthropic`) is read as that kind.
 */
export const ProviderConfig = z.preprocess(
  (raw) => {
    if (raw === null || typeof raw !== "object" || "kind" in raw || !("wire" in raw)) return raw;
    const { wire, ...rest } = raw as { wire: unknown };
    return wire === "openai" || wire === "anthropic" ? { kind: wire, ...rest } : raw;
  },
  z.discriminatedUnion("kind", [OpenAIProviderConfig, AnthropicProviderConfig, AzureOpenAIProviderConfig, BedrockProviderConfig, VertexProviderConfig], {
    error: `expected kind ${kindList} (a provider written with \`wire: openai\` or \`wire: anthropic\` is read as that kind)`,
  }),
);
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** Opens a provider of its kind: reads its credentials from `env` (an error names a missing one) and builds its endpoint. */
export function openProvider(config: ProviderConfig, name: string, env: NodeJS.ProcessEnv): OpenedProvider {
  const kind = KINDS[config.kind] as ProviderKind<ProviderConfig>;
  return kind.open(config, name, env);
}

/** The families a provider forwards, as its kind (and, for some kinds, its config) says. */
export function familiesOf(config: ProviderConfig): ReadonlySet<ForwardedFamily> {
  const kind = KINDS[config.kind] as ProviderKind<ProviderConfig>;
  return kind.families(config);
}
