// Guards a resource's route through the access-control provider: a user who may not open it is
// sent home (members to the workspace list) instead of seeing a refusal (spec §2 route "/").
import { CanAccess } from "@refinedev/core";
import type { ReactNode } from "react";
import { Navigate } from "react-router";
import type { ResourceAction } from "../../resources/types";
import { useHome } from "../layout/use-home";

type Props = { resource: string; action: ResourceAction; children: ReactNode };

export function ResourceGuard({ resource, action, children }: Props) {
  const home = useHome();
  return (
    <CanAccess resource={resource} action={action} fallback={home ? <Navigate to={home} replace /> : null}>
      {children}
    </CanAccess>
  );
}
