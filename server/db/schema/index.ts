export * from "./budgets";
export * from "./eval-runs";
export * from "./identity";
export * from "./metering";
export * from "./product";
export * from "./webhooks";
