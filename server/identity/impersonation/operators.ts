import { eq } from "drizzle-orm";
import { user } from "../../db/schema";
import type { Db } from "../../platform/database";

// A provider operator is a user whose better-auth admin-plugin role is "admin": the plugin lets
// exactly those users impersonate. It is a provider-wide power, unrelated to organization roles,
// so it is granted only from the command line by whoever runs the installation.
const OPERATOR_ROLE = "admin";

export function isOperator(u: { role?: string | null }): boolean {
  return (u.role ?? "").split(",").some((r) => r.trim() === OPERATOR_ROLE);
}

/** Whether the user exists, is not banned and holds the operator role. */
export async function isProviderOperator(db: Db, userId: string): Promise<boolean> {
  const [u] = await db.select({ role: user.role, banned: user.banned }).from(user).where(eq(user.id, userId));
  return !!u && !u.banned && isOperator(u);
}

/** Grants or revokes the operator role; false when no user has that email. */
export async function setOperator(db: Db, email: string, grant: boolean): Promise<boolean> {
  const rows = await db
    .update(user)
    .set({ role: grant ? OPERATOR_ROLE : "user", updatedAt: new Date() })
    .where(eq(user.email, email.trim().toLowerCase()))
    .returning({ id: user.id });
  return rows.length > 0;
}
