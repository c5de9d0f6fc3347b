export * from "./cycle";
export * from "./leaks";
export * from "./operations";
export * from "./sandbox";
