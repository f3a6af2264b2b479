export * from "./billing";
export * from "./budgets";
export * from "./eval-runs";
export * from "./identity";
export * from "./metering";
export * from "./product";
export * from "./usage-rollups";
export * from "./webhooks";
