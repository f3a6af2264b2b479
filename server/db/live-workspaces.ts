import { and, eq, isNull } from "drizzle-orm";
import { workspaces } from "./schema";

/**
 * The organization's live workspaces: a deleted workspace keeps its row (deleted_at set) so it can
 * be restored, and every query but an explicit listing of deleted ones must pass it over.
 */
export const liveWorkspacesOf = (organizationUuid: string) =>
  and(eq(workspaces.organizationUuid, organizationUuid), isNull(workspaces.deletedAt));
