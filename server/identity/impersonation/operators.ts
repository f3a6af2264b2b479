import { and, asc, eq, like, ne, sql } from "drizzle-orm";
import { user } from "../../db/schema";
import { type Actor, writeAuditBy } from "../../platform/audit";
import type { Db, Tx } from "../../platform/database";
import { DomainError } from "../../platform/domain-error";
import type { OperatorRoles } from "../../platform/identity-gateway";

// A provider operator is a user whose better-auth admin-plugin role is "admin": the plugin lets
// exactly those users impersonate. It is a provider-wide power, unrelated to organization roles,
// so it is granted only by whoever runs the installation: the command line, or an operator
// through the operator API.
const OPERATOR_ROLE = "admin";

export function isOperator(u: { role?: string | null }): boolean {
  return (u.role ?? "").split(",").some((r) => r.trim() === OPERATOR_ROLE);
}

/** Whether the user exists, is not banned and holds the operator role. */
export async function isProviderOperator(db: Db, userId: string): Promise<boolean> {
  const [u] = await db.select({ role: user.role, banned: user.banned }).from(user).where(eq(user.id, userId));
  return !!u && !u.banned && isOperator(u);
}

/** Every user holding the operator role (banned ones too: they keep it, unused), by email. */
export async function listOperators(db: Db): Promise<{ userId: string; email: string }[]> {
  const rows = await db
    .select({ userId: user.id, email: user.email, role: user.role })
    .from(user)
    .where(like(user.role, `%${OPERATOR_ROLE}%`))
    .orderBy(asc(user.email));
  return rows.filter(isOperator).map(({ userId, email }) => ({ userId, email }));
}

/** A revocation that would leave no operator able to act; `message` says what to do instead. */
export class LastOperatorError extends DomainError {
  constructor(email: string) {
    super(
      `${email} is the last provider operator; grant the role to another user before revoking it ` +
        "(the command line can always grant it).",
      "conflict",
    );
  }
}

/**
 * Grants or revokes the operator role: the user's id and email, or null when no user has that
 * email. With an actor, the change's audit row (a platform entry: the role belongs to no
 * organization) is written in the same transaction. Every check of the role reads the table, so
 * the change counts at once. With `keepOne`, revoking the role of the last operator who can act
 * (not banned) throws LastOperatorError: an operator must not lock every operator out of the
 * operator API. The command line need not keep one, since it can always grant the role again.
 */
export async function setOperatorRole(
  db: Db,
  email: string,
  grant: boolean,
  actor?: Actor,
  opts: { keepOne?: boolean } = {},
): Promise<{ userId: string; email: string } | null> {
  const address = email.trim().toLowerCase();
  return db.transaction(async (tx: Tx) => {
    // Revocations one at a time, so two operators revoking each other cannot both pass the check.
    if (!grant && opts.keepOne)
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('operator-roles'))`);
    const [before] = await tx.select({ role: user.role }).from(user).where(eq(user.email, address));
    if (!grant && opts.keepOne && before && isOperator(before) && !(await anotherActiveOperator(tx, address)))
      throw new LastOperatorError(address);
    const [row] = await tx
      .update(user)
      .set({ role: grant ? OPERATOR_ROLE : "user", updatedAt: new Date() })
      .where(eq(user.email, address))
      .returning({ id: user.id });
    if (!row) return null;
    await writeAuditBy(tx, actor, {
      organizationUuid: null,
      action: grant ? "operator.granted" : "operator.revoked",
      target: { type: "user", id: row.id, label: address },
      before: { operator: isOperator(before ?? {}) },
      after: { operator: grant },
    });
    return { userId: row.id, email: address };
  });
}

/** Whether a user other than `email` holds the operator role and is not banned. */
async function anotherActiveOperator(tx: Tx, email: string): Promise<boolean> {
  const rows = await tx
    .select({ role: user.role })
    .from(user)
    .where(and(like(user.role, `%${OPERATOR_ROLE}%`), eq(user.banned, false), ne(user.email, email)));
  return rows.some(isOperator);
}

/** Grants or revokes the operator role; false when no user has that email. */
export const setOperator = async (db: Db, email: string, grant: boolean, actor?: Actor) =>
  (await setOperatorRole(db, email, grant, actor)) !== null;

/** The operator roles as the operator API reaches them (platform/identity-gateway.ts). */
export const operatorRoles = (db: Db): OperatorRoles => ({
  list: () => listOperators(db),
  set: (email, grant, actor, opts) => setOperatorRole(db, email, grant, actor, opts),
});
