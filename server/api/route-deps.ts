import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { IngestKeyVerifier } from "../metering/ingestion/ingest-keys";
import type { Db } from "../platform/database";
import type { IdentityGateway } from "../platform/identity-gateway";
import type { WorkspaceStore } from "../workspaces/store";
import type { Authenticate } from "./principal";

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
  /** USAGE_MAX_AGE_DAYS: older usage is rejected (0: no horizon). */
  usageMaxAgeDays?: number;
};

/** What the operator route plugins (/v1/operator/…) are given; the guard needs the first three. */
export type OperatorRouteDeps = {
  db: Db;
  gateway: IdentityGateway;
  authenticate: Authenticate;
  /** The backend API key: the local operator credential with which the CLI reaches this server. */
  operatorKey?: string;
  workspaces: WorkspaceStore;
  /** AUDIT_RETENTION_DAYS: what an operator's audit purge keeps. */
  auditRetentionDays: number;
  /** USAGE_MAX_AGE_DAYS: older usage is rejected by imports too (0: no horizon). */
  usageMaxAgeDays?: number;
};

/** The instance a route plugin is given (zod type provider): what its route groups register on. */
export type RouteApp = Parameters<FastifyPluginAsyncZod>[0];
