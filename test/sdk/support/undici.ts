/**
 * The sdk pins undici 8; the repository root holds an older undici that other tools depend on. A
 * MockAgent only works as the sdk's dispatcher when it comes from the same undici, so tests take it
 * from the sdk's own dependency rather than from the root.
 */
export { Agent, MockAgent } from "../../../sdk/node_modules/undici";
export type { Dispatcher } from "../../../sdk/node_modules/undici";
