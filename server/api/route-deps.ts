import type { IngestKeyVerifier } from "../metering/ingest-keys";
import type { Db } from "../platform/database";
import type { IdentityGateway } from "../platform/identity-gateway";
import type { Authenticate } from "./principal";
import type { WorkspaceStore } from "./workspace-store";

/** What the route plugins of accounts, workspaces, their members and operators are given. */
export type WorkspaceRouteDeps = {
  gateway: IdentityGateway;
  workspaces: WorkspaceStore;
};

/** What the ingestion routes (events and the operators' ingestion keys) are given. */
export type IngestRouteDeps = {
  db: Db;
  gateway: IdentityGateway;
  authenticate: Authenticate;
  ingestKeys: IngestKeyVerifier;
  /** The backend API key, with which operators' tools may call as bearer. */
  operatorKey?: string;
};
