import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, organization } from "../../server/db/schema";
import { createApiKeyService, type ValidatedApiKey } from "../../server/identity/api-keys/service";
import { createApiKeyValidation } from "../../server/identity/api-keys/validation-cache";
import { DEMO_ORG } from "../../server/seed";
import { backends, createOrgApiKey, signIn, startProduct, type TestProduct } from "./harness";

// A busy validated API key is reloaded in the background before its lifetime ends. The reload
// reads one digest of the rows the validation depends on and keeps the key when it is unchanged,
// instead of the five-statement lookup; a change to any of those rows is still seen within the
// lifetime even when no change notice arrives (this validation listens to none).

const TTL_MS = 300;

describe.each(backends())("API key revalidation on $name", (backend) => {
  let p: TestProduct;
  let orgId: string;
  let adminCookie: string;

  beforeAll(async () => {
    p = await startProduct(backend);
    orgId = (await p.identity.admin.findOrganizationBySlug(DEMO_ORG.slug))?.id ?? "";
    adminCookie = await signIn(p, "admin@acme.test");
  }, 120_000);
  afterAll(async () => p?.dispose());

  /** Validates `token` every 40 ms until `done` holds for the answer, for at most 3 lifetimes. */
  async function until(
    v: { validate: (t: string) => ValidatedApiKey | null | Promise<ValidatedApiKey | null> },
    token: string,
    done: (k: ValidatedApiKey | null) => boolean,
  ) {
    const started = Date.now();
    let last = await v.validate(token);
    while (!done(last) && Date.now() - started < 3 * TTL_MS) {
      await new Promise((r) => setTimeout(r, 40));
      last = await v.validate(token);
    }
    return last;
  }

  it("keeps an unchanged key without the full lookup, and sees a rename and a deletion without notices", async () => {
    const key = await createOrgApiKey(p, adminCookie, orgId);
    const service = createApiKeyService(p.database.db, p.identity.ctx.directory);
    let lookups = 0;
    const validation = createApiKeyValidation(
      p.database.db,
      (token) => {
        lookups += 1;
        return service.validate(token);
      },
      { ttlMs: TTL_MS, flushMs: 3_600_000 },
    );
    try {
      const first = await validation.validate(key.token);
      expect(first?.org?.id).toBe(orgId);
      // Busy for several lifetimes: reloaded in the background each time, never looked up again.
      const started = Date.now();
      while (Date.now() - started < 3 * TTL_MS) {
        expect(await validation.validate(key.token)).toBe(first);
        await new Promise((r) => setTimeout(r, 40));
      }
      expect(lookups).toBe(1);

      const renamed = `${DEMO_ORG.name} (renamed)`;
      await p.database.db.update(organization).set({ name: renamed }).where(eq(organization.id, orgId));
      try {
        const seen = await until(validation, key.token, (k) => k?.org?.name === renamed);
        expect(seen?.org?.name).toBe(renamed);
        expect(lookups).toBe(2);
      } finally {
        await p.database.db
          .update(organization)
          .set({ name: DEMO_ORG.name })
          .where(eq(organization.id, orgId));
      }

      await p.database.db.delete(apiKey).where(eq(apiKey.id, key.id));
      expect(await until(validation, key.token, (k) => k === null)).toBeNull();
    } finally {
      await validation.close();
    }
  });
});
