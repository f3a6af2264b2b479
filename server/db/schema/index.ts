export * from "./identity";
export * from "./metering";
export * from "./product";
export * from "./webhooks";
export * from "./budgets";
export * from "./eval-runs";
