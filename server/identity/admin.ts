import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { type RoleName, roleToStored } from "../../contract/role-hierarchy";
import { account, member, organization, user } from "../db/schema";
import type { Db } from "../platform/database";
import { announceTokenRevocation } from "../platform/token-revocation";
import { hashPassword } from "./better-auth/adapter";
import type { Auth } from "./better-auth/auth";
import { bumpTokenVersions } from "./session/token-version";

/** Administrative writes (seed, CLI): no session, no emails, no rate limits. */
export function createIdentityAdmin(db: Db, auth: Auth) {
  return {
    async findUserByEmail(email: string) {
      const [u] = await db.select({ id: user.id }).from(user).where(eq(user.email, email.toLowerCase()));
      return u ?? null;
    },

    /** Creates a confirmed user with a password, hashed the way better-auth verifies it. */
    async createUser(input: { email: string; password: string; firstName?: string; lastName?: string }) {
      const id = randomUUID();
      const hash = await hashPassword(auth, input.password);
      const name = [input.firstName, input.lastName].filter(Boolean).join(" ") || input.email;
      await db.transaction(async (tx) => {
        await tx.insert(user).values({
          id,
          email: input.email.toLowerCase(),
          name,
          emailVerified: true,
          firstName: input.firstName ?? null,
          lastName: input.lastName ?? null,
        });
        await tx
          .insert(account)
          .values({ id: randomUUID(), accountId: id, providerId: "credential", userId: id, password: hash });
      });
      return { id, email: input.email.toLowerCase() };
    },

    async setPassword(userId: string, password: string) {
      await db
        .update(account)
        .set({ password: await hashPassword(auth, password), updatedAt: new Date() })
        .where(eq(account.userId, userId));
    },

    /** Disables (bans) or re-enables a user; disabling ends their access tokens at once. */
    async setDisabled(userId: string, disabled: boolean) {
      await db.transaction(async (tx) => {
        await tx.update(user).set({ banned: disabled, updatedAt: new Date() }).where(eq(user.id, userId));
        if (disabled) await bumpTokenVersions(tx, [userId]);
      });
      if (disabled) announceTokenRevocation(db, [userId]);
    },

    async findOrganizationBySlug(slug: string) {
      const [o] = await db
        .select({ id: organization.id, name: organization.name })
        .from(organization)
        .where(eq(organization.slug, slug));
      return o ?? null;
    },

    async createOrganization(name: string, slug: string) {
      const id = randomUUID();
      await db.insert(organization).values({ id, name, slug, metadata: null });
      return { id, name };
    },

    async addMember(orgId: string, userId: string, role: RoleName) {
      await db
        .insert(member)
        .values({ id: randomUUID(), organizationId: orgId, userId, role: roleToStored(role) });
    },
  };
}

export type IdentityAdmin = ReturnType<typeof createIdentityAdmin>;
