// Guards an admin-only route through the access-control provider; members are sent to the
// workspace list instead of seeing a refusal (spec §2 route "/").
import { CanAccess } from "@refinedev/core";
import type { ReactNode } from "react";
import { Navigate } from "react-router";

export function AdminOnly({ resource, children }: { resource: string; children: ReactNode }) {
  return (
    <CanAccess
      resource={resource}
      action="list"
      fallback={<Navigate to="/organization/workspaces" replace />}
    >
      {children}
    </CanAccess>
  );
}
