// Where a user lands (spec §2: the logo links to / for administrators, to the workspace list for
// others): Billing & Usage when the access-control provider lets them list it (Refine's useCan),
// else Workspaces. Undefined until the answer is in.
import { useCan } from "@refinedev/core";
import { billing } from "../../resources/billing";
import { workspaces } from "../../resources/workspaces";

export function useHome(): string | undefined {
  const { data } = useCan({ resource: billing.name, action: "list" });
  if (!data) return undefined;
  return String(data.can ? billing.list : workspaces.list);
}
