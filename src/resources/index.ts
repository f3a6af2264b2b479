// Every console resource, in sider order. A new resource is one file in this folder and one line
// here (docs/architecture.md, "Adding a resource"); routes, sider, data providers and access
// control pick it up from its declaration.
import type { ResourceProps } from "@refinedev/core";
import { accountSettings } from "./account-settings";
import { apiKeys } from "./api-keys";
import { auditLog } from "./audit-log";
import { billing } from "./billing";
import { billingCycles } from "./billing-cycles";
import { budgetAlerts, budgetReservations, budgets } from "./budgets";
import { evalRunComparisons } from "./eval-run-comparisons";
import { evalRuns } from "./eval-runs";
import { operatorBillingCycles, operatorPayments } from "./operator-billing";
import { operatorIngestKeys } from "./operator-ingest-keys";
import { operatorJobs } from "./operator-jobs";
import { operatorOrganizations } from "./operator-organizations";
import { operatorPriceRules } from "./operator-price-rules";
import { organizationInvitations, organizationUsers } from "./organization-users";
import type { ConsoleResource } from "./types";
import { usageRecords } from "./usage-records";
import { webhookDeliveries, webhookEndpoints } from "./webhook-endpoints";
import { workspaceMemberCandidates } from "./workspace-member-candidates";
import { workspaceMembers } from "./workspace-members";
import { workspaces } from "./workspaces";

export const resources: readonly ConsoleResource[] = [
  billing,
  evalRuns,
  workspaces,
  organizationUsers,
  apiKeys,
  auditLog,
  webhookEndpoints,
  accountSettings,
  // The operator area: its own sider group, after the organization's entries; operators only.
  operatorOrganizations,
  operatorPriceRules,
  operatorIngestKeys,
  operatorJobs,
  workspaceMembers,
  workspaceMemberCandidates,
  billingCycles,
  usageRecords,
  organizationInvitations,
  budgets,
  budgetAlerts,
  budgetReservations,
  evalRunComparisons,
  webhookDeliveries,
  operatorBillingCycles,
  operatorPayments,
];

export function resourceByName(name: string | undefined): ConsoleResource | undefined {
  return resources.find((resource) => resource.name === name);
}

/** The declarations as Refine takes them (pages, prefetch and first reads are the route tree's and
 * the auth gate's business). */
export const refineResources: ResourceProps[] = resources.map(
  ({ pages: _pages, prefetch: _prefetch, firstReads: _firstReads, firstList: _firstList, ...resource }) =>
    resource,
);
