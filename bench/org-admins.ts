// What every page load asks the identity directory for: the organization's owners and
// administrators (the "ask an administrator" line of /v1/accounts/me, and budget alert emails).
// Timed against reading the whole member list (what /v1/accounts/me did before) in organizations of
// 100, 1,000 (the default member limit) and 10,000 members, on the embedded database as the server
// runs it (its own thread, one statement at a time for every tenant). Floor: `select 1` through the
// same thread. Also one member by email (adding a workspace member: findOrganizationUser), which
// read the whole list before as well.
//
// Usage: npx tsx bench/org-admins.ts [--runs 30] [--sizes 100,1000,10000]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { createDirectory } from "../server/identity/directory";
import { openDatabase } from "../server/platform/database";

const { values: args } = parseArgs({
  options: { runs: { type: "string", default: "30" }, sizes: { type: "string", default: "100,1000,10000" } },
});
const RUNS = Number(args.runs);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function time(work: () => Promise<unknown>): Promise<number> {
  await work(); // once untimed: the plan and the thread warm
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await work();
    times.push(performance.now() - t);
  }
  return p50(times);
}

const dir = mkdtempSync(join(tmpdir(), "eval-console-bench-admins-"));
const database = await openDatabase({ kind: "pglite", dataDir: dir });
try {
  await database.migrate();
  const db = database.db;
  const directory = createDirectory(db);
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
  console.log(`p50 of ${RUNS} calls, ms; 3 administrators in each organization`);
  console.log(
    "members".padStart(8),
    "floor".padStart(7),
    "all members".padStart(12),
    "admins only".padStart(12),
    "one by email".padStart(12),
  );
  for (const size of args.sizes.split(",").map(Number)) {
    const org = `org-${size}`;
    await db.execute(sql`insert into identity.organization (id, name, slug) values (${org}, ${org}, ${org})`);
    await db.execute(
      sql`insert into identity."user" (id, name, email)
          select ${org} || '-u' || g, 'User ' || g, ${org} || '-user' || g || '@bench.test' from generate_series(1, ${size}::int) g`,
    );
    await db.execute(
      sql`insert into identity.member (id, organization_id, user_id, role)
          select ${org} || '-m' || g, ${org}, ${org} || '-u' || g, case when g <= 3 then 'admin' else 'member' end
          from generate_series(1, ${size}::int) g`,
    );
    await db.execute(sql`analyze identity.member`);
    const floor = await time(() => db.execute(sql`select 1`));
    const all = await time(() => directory.listOrganizationUsers(org));
    const admins = await time(() => directory.listOrganizationAdmins(org));
    const one = await time(() => directory.findOrganizationUser(org, `${org}-user${size}@bench.test`));
    console.log(
      String(size).padStart(8),
      floor.toFixed(2).padStart(7),
      all.toFixed(2).padStart(12),
      admins.toFixed(2).padStart(12),
      one.toFixed(2).padStart(12),
    );
  }
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
