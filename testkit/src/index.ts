/**
 * Everything the testkit offers. Each module is also its own entry point
 * (`@gateway-keys/testkit/test-gateway`, …): importing this one loads the Pulumi Automation API
 * too, about a second per jest test file that needs none of it.
 */
export * from "./engine/index.ts";
export * from "./gateway-process.ts";
export * from "./request-recorder.ts";
export * from "./test-gateway.ts";
