/**
 * The organizations as provider operators see them: every one, with its member count, searched by
 * name or slug. Read from the identity tables, as resolveOrganization (billing.ts) reads them.
 */
import { asc, eq, ilike, or, type SQL, sql } from "drizzle-orm";
import { organization } from "../../db/schema";
import type { Db } from "../../platform/database";
import { containing } from "../../platform/like-pattern";
import { pageWindow, readPage } from "../../platform/paged-list";

export type OrganizationSummary = {
  id: string;
  name: string;
  slug: string;
  createdAt: Date;
  memberCount: number;
};

const summaryColumns = {
  id: organization.id,
  name: organization.name,
  slug: organization.slug,
  createdAt: organization.createdAt,
  // Spelled out: inside the subquery drizzle would leave the outer "id" unqualified (member's own).
  memberCount: sql<number>`(select count(*)::int from identity.member m where m.organization_id = "organization"."id")`,
};

/** One page of organizations by name (then id), and how many match in all. */
export async function listOrganizations(
  db: Db,
  opts: { search?: string; page: number; pageSize: number },
): Promise<{ organizations: OrganizationSummary[]; total: number }> {
  const where: SQL | undefined = opts.search
    ? or(ilike(organization.name, containing(opts.search)), ilike(organization.slug, containing(opts.search)))
    : undefined;
  const { rows, total } = await readPage(
    db
      .select(summaryColumns)
      .from(organization)
      .where(where)
      .orderBy(asc(organization.name), asc(organization.id))
      .$dynamic(),
    db.$count(organization, where),
    pageWindow(opts.page, opts.pageSize),
  );
  return { organizations: rows.map(normalize), total };
}

/** One organization's summary by id, or null. */
export async function organizationSummary(db: Db, id: string): Promise<OrganizationSummary | null> {
  const [row] = await db.select(summaryColumns).from(organization).where(eq(organization.id, id));
  return row ? normalize(row) : null;
}

const normalize = (r: OrganizationSummary): OrganizationSummary => ({
  ...r,
  memberCount: Number(r.memberCount),
});
