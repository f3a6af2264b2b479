import { and, asc, desc, eq, gt, isNull, or, type SQL, sql } from "drizzle-orm";
import { apiKey, organization, user } from "../../db/schema";
import { type AuditEntryInput, writeAudits } from "../../platform/audit";
import type { Db } from "../../platform/database";
import { readPage } from "../../platform/paged-list";
import type { Directory } from "../directory";
import { IdentityError } from "../errors";
import { type IdentityUser, type OrgMembership, orgMemberInfo } from "../session/access-tokens";
import {
  API_KEY_ID_PATTERN,
  type ExpirationOption,
  expiryFor,
  hashApiKeyToken,
  isWellFormedToken,
  newApiKeyId,
  newApiKeyToken,
} from "./token";
import { forgetApiKey } from "./validation-cache";

const MANAGE_API_KEYS = "propelauth::can_manage_api_keys";

export type ApiKeySort = "CreatedAtAsc" | "CreatedAtDesc" | "ExpiresAtAsc" | "ExpiresAtDesc";
export type ListQuery = {
  offset: number;
  pageSize: number;
  pageNumber: number;
  search?: string;
  sort?: ApiKeySort;
};

/** A key that validated: its owner, and for org keys the organization and the owner's membership. */
export type ValidatedApiKey = {
  apiKeyId: string;
  expiresAt: Date | null;
  metadata: Record<string, unknown> | null;
  user: IdentityUser;
  /** Every organization of the user, oldest membership first (a personal key acts in the first). */
  memberships: OrgMembership[];
  org: { id: string; name: string; slug: string; metadata: string | null; maxUsers: number | null } | null;
  membership: OrgMembership | null;
};

/** The signed-in user acting on keys, as the audit log records them. */
export type KeyActor = { id: string; email: string; impersonatorId?: string | null };

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);
const notExpired = () => or(isNull(apiKey.expiresAt), gt(apiKey.expiresAt, sql`now()`));

function parseJsonObject(raw: string | null): Record<string, unknown> | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

const ORDER: Record<ApiKeySort, SQL[]> = {
  CreatedAtDesc: [desc(apiKey.createdAt), desc(apiKey.id)],
  CreatedAtAsc: [asc(apiKey.createdAt), asc(apiKey.id)],
  // Keys that never expire sort as "latest" either way round.
  ExpiresAtDesc: [sql`${apiKey.expiresAt} desc nulls first`, desc(apiKey.id)],
  ExpiresAtAsc: [sql`${apiKey.expiresAt} asc nulls last`, asc(apiKey.id)],
};

/**
 * The audit rows of a key change: an organization key's organization, or for a personal key
 * every organization its owner belongs to (it acts in them, so each one's administrators see it).
 */
async function keyAudits(
  directory: Directory,
  actor: KeyActor,
  action: "api_key.created" | "api_key.deleted",
  key: { id: string; orgId: string | null; ownerId: string; expiresAt: Date | null },
): Promise<AuditEntryInput[]> {
  const orgIds = key.orgId ? [key.orgId] : (await directory.listMemberships(key.ownerId)).map((m) => m.orgId);
  const snapshot = {
    kind: key.orgId ? "organization" : "personal",
    owner_user_id: key.ownerId,
    expires_at: key.expiresAt,
  };
  return orgIds.map((organizationUuid) => ({
    organizationUuid,
    actor: {
      userId: actor.id,
      email: actor.email,
      source: "console",
      impersonatorUserId: actor.impersonatorId ?? null,
    },
    action,
    target: {
      type: "api_key",
      id: key.id,
      label: key.orgId ? "Organization API key" : `Personal API key of ${actor.email}`,
    },
    ...(action === "api_key.created" ? { after: snapshot } : { before: snapshot }),
  }));
}

/** One page of the keys `where` selects, as the PropelAuth API answers a listing. */
async function keyPage(db: Db, where: SQL | undefined, q: ListQuery) {
  const filter = q.search ? and(where, sql`strpos(${apiKey.id}, ${q.search.toLowerCase()}) > 0`) : where;
  const { rows, total } = await readPage(
    db
      .select({
        id: apiKey.id,
        createdAt: apiKey.createdAt,
        expiresAt: apiKey.expiresAt,
        metadata: apiKey.metadata,
      })
      .from(apiKey)
      .where(filter)
      .orderBy(...ORDER[q.sort ?? "CreatedAtDesc"])
      .$dynamic(),
    db.$count(apiKey, filter),
    { limit: q.pageSize, offset: q.offset },
  );
  return {
    api_keys: rows.map((r) => ({
      api_key_id: r.id,
      created_at: epoch(r.createdAt),
      expires_at_seconds: r.expiresAt ? epoch(r.expiresAt) : null,
      metadata: parseJsonObject(r.metadata),
    })),
    total_api_keys: total,
    current_page: q.pageNumber,
    page_size: q.pageSize,
    has_more_results: q.offset + rows.length < total,
  };
}

/**
 * End-user API keys: create, list, delete (for the identity client routes and any hosted page) and
 * validate (for the backend API and the in-process gateway). Permission checks live here so every
 * caller enforces the same rules.
 */
export function createApiKeyService(db: Db, directory: Directory) {
  async function membershipOf(userId: string, orgId: string) {
    return (await directory.listMemberships(userId)).find((m) => m.orgId === orgId) ?? null;
  }
  const canManage = (m: OrgMembership) => orgMemberInfo(m).user_permissions.includes(MANAGE_API_KEYS);

  return {
    listPersonal(userId: string, q: ListQuery) {
      return keyPage(db, and(eq(apiKey.userId, userId), isNull(apiKey.orgId), notExpired()), q);
    },

    /** Org keys are visible to members holding can_manage_api_keys; non-members learn nothing. */
    async listForOrg(userId: string, orgId: string, q: ListQuery) {
      const m = await membershipOf(userId, orgId);
      if (!m) throw new IdentityError("org_not_found");
      if (!canManage(m))
        throw new IdentityError("action_forbidden", "You may not view this organization's API keys.");
      return keyPage(db, and(eq(apiKey.orgId, orgId), notExpired()), q);
    },

    async create(actor: KeyActor, input: { orgId?: string; expiration: ExpirationOption }) {
      const userId = actor.id;
      if (input.orgId !== undefined) {
        const m = await membershipOf(userId, input.orgId);
        // The client has no org_not_found case for create: a foreign org is simply forbidden.
        if (!m || !canManage(m))
          throw new IdentityError("action_forbidden", "You may not create API keys for this organization.");
      }
      const id = newApiKeyId();
      const token = newApiKeyToken();
      const expiresAt = expiryFor(input.expiration);
      const orgId = input.orgId ?? null;
      const audits = await keyAudits(directory, actor, "api_key.created", {
        id,
        orgId,
        ownerId: userId,
        expiresAt,
      });
      await db.transaction(async (tx) => {
        await tx.insert(apiKey).values({ id, tokenHash: hashApiKeyToken(token), userId, orgId, expiresAt });
        await writeAudits(tx, audits);
      });
      return { api_key_id: id, api_key_token: token };
    },

    /**
     * Own personal keys, or org keys by members who manage keys. Keys the caller cannot see
     * (someone's personal key, another organization's key) are not_found, revealing nothing.
     */
    async delete(actor: KeyActor, apiKeyId: string) {
      const userId = actor.id;
      const notFound = new IdentityError("not_found", "API key not found.");
      if (!API_KEY_ID_PATTERN.test(apiKeyId)) throw notFound;
      const [key] = await db.select().from(apiKey).where(eq(apiKey.id, apiKeyId));
      if (!key) throw notFound;
      if (key.orgId === null) {
        if (key.userId !== userId) throw notFound;
      } else {
        const m = await membershipOf(userId, key.orgId);
        if (!m) throw notFound;
        if (!canManage(m)) throw new IdentityError("action_forbidden", "You may not delete this API key.");
      }
      const audits = await keyAudits(directory, actor, "api_key.deleted", {
        id: key.id,
        orgId: key.orgId,
        ownerId: key.userId,
        expiresAt: key.expiresAt,
      });
      await db.transaction(async (tx) => {
        await tx.delete(apiKey).where(eq(apiKey.id, apiKeyId));
        await writeAudits(tx, audits);
      });
      await forgetApiKey(db, key.tokenHash);
    },

    /**
     * The key's identity, or null when it is unknown, expired, deleted, its user is disabled, or
     * (org keys) its creator is no longer a member of the organization.
     */
    async validate(token: string): Promise<ValidatedApiKey | null> {
      if (!isWellFormedToken(token)) return null;
      const [row] = await db
        .select({ key: apiKey, banned: user.banned })
        .from(apiKey)
        .innerJoin(user, eq(apiKey.userId, user.id))
        .where(and(eq(apiKey.tokenHash, hashApiKeyToken(token)), notExpired()));
      if (!row || row.banned) return null;
      const { key } = row;
      const [owner, memberships, orgRows] = await Promise.all([
        directory.findUser(key.userId),
        directory.listMemberships(key.userId),
        key.orgId
          ? db.select().from(organization).where(eq(organization.id, key.orgId))
          : Promise.resolve([]),
      ]);
      if (!owner) return null;
      const membership = key.orgId ? (memberships.find((m) => m.orgId === key.orgId) ?? null) : null;
      const org = orgRows[0];
      if (key.orgId && (!membership || !org)) return null;
      // last_used_at is written in batches by the validation cache (validation-cache.ts).
      return {
        apiKeyId: key.id,
        expiresAt: key.expiresAt,
        metadata: parseJsonObject(key.metadata),
        user: owner,
        memberships,
        org: org
          ? { id: org.id, name: org.name, slug: org.slug, metadata: org.metadata, maxUsers: org.maxUsers }
          : null,
        membership,
      };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
