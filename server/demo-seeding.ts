// The operator API's demo seed (api/operator/seed.ts), made here at the composition root: it
// needs the identity service's own writes and the demo data, which the API never imports.
import type { DemoSeeding, DemoSeedResult } from "./api/operator/seed";
import type { IdentityAdmin } from "./identity/admin";
import { writeAudit } from "./platform/audit";
import type { Db } from "./platform/database";
import { DEMO_ORG, DEMO_USERS, demoIngestKey, seedDemo, seedDemoUsage, shownDemoPassword } from "./seed";

export function createDemoSeeding(deps: {
  db: Db;
  /** The identity service's own writes: the demo's organization and users are made with them. */
  identity: IdentityAdmin;
  /** DEMO_PASSWORD, if set. */
  demoPassword: string | undefined;
  /** Without DEMO_PASSWORD: a generated password (PostgreSQL) rather than the documented one. */
  generatePassword: boolean;
}): DemoSeeding {
  return {
    orgName: DEMO_ORG.name,
    async run(workspaces, opts) {
      const seeded = { ...deps, workspaces };
      const org = await seedDemo(seeded, { password: deps.demoPassword, generate: deps.generatePassword });
      const key = org.created ? await demoIngestKey(deps.db, opts.by) : null;
      const usage = await seedDemoUsage(seeded, {
        events: opts.events,
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        onProgress: opts.onProgress,
      });
      const demo = await deps.identity.findOrganizationBySlug(DEMO_ORG.slug);
      const result: DemoSeedResult = {
        created: org.created,
        reason: org.created ? null : org.reason,
        users: DEMO_USERS.map((u) => u.email),
        password: org.created ? shownDemoPassword(org) : null,
        ingest_key: key,
        usage: usage.seeded
          ? {
              seeded: true,
              reason: null,
              generated: usage.generated,
              accepted: usage.accepted,
              seconds: usage.seconds,
            }
          : { seeded: false, reason: usage.reason, generated: 0, accepted: 0, seconds: 0 },
      };
      if (demo)
        await writeAudit(deps.db, {
          organizationUuid: demo.id,
          actor: opts.by,
          action: "demo.seeded",
          target: { type: "organization", id: demo.id, label: demo.name },
          after: {
            created: result.created,
            usage_seeded: result.usage.seeded,
            events_generated: result.usage.generated,
            events_stored: result.usage.accepted,
          },
        });
      return result;
    },
  };
}
