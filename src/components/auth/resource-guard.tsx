// Guards a resource's route through the access-control provider: a user who may not open it is
// sent home (members to the workspace list) instead of seeing a refusal (spec §2 route "/").
import { CanAccess } from "@refinedev/core";
import type { ReactNode } from "react";
import { Navigate } from "react-router";
import { useCurrentUser } from "../../hooks/use-current-user";
import { homeRoute } from "../../lib/resource-access";
import { resources } from "../../resources";
import type { ResourceAction } from "../../resources/types";

type Props = { resource: string; action: ResourceAction; children: ReactNode };

export function ResourceGuard({ resource, action, children }: Props) {
  const { data: user } = useCurrentUser();
  return (
    <CanAccess
      resource={resource}
      action={action}
      fallback={<Navigate to={homeRoute(resources, user ?? null)} replace />}
    >
      {children}
    </CanAccess>
  );
}
