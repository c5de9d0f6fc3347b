export * from "./cycle.ts";
export * from "./leaks.ts";
export * from "./operations.ts";
export * from "./sandbox.ts";
export { REPO_ROOT } from "../repo-root.ts";
