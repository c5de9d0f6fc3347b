/**
 * The gateway's wire contract, shared by the gateway, the SDK and the Pulumi provider.
 * Each wire object is one zod schema with its type beside it; docs/api/README.md explains them.
 */
export * from "./api-key";
export * from "./audit";
export * from "./bulk-rotation";
export * from "./label-selector";
export * from "./secret-use-rule";
export * from "./key-alerts";
export * from "./webhooks";
export * from "./teams";
export * from "./canonical-json";
export * from "./credentials";
export * from "./errors";
export * from "./health";
export * from "./list";
export * from "./models";
export * from "./headers";
export * from "./routes";
export * from "./policies";
export * from "./principal";
export * from "./reading";
export * from "./scopes";
export * from "./spend-windows";
export * from "./units";
export * from "./usage";
export * from "./validation";
export * from "./route-inputs";
export * from "./model-api";
export * from "./schema-names";
