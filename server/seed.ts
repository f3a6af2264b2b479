import { randomBytes } from "node:crypto";
import type { WorkspaceStore } from "./api/workspace-store";
import type { IdentityAdmin } from "./identity/admin";
import type { RoleName } from "./identity/roles";

export const DEMO_ORG = { name: "Acme AI", slug: "acme-ai" };
/** The documented password of the embedded demo, used when DEMO_PASSWORD is not set. */
export const DEFAULT_DEMO_PASSWORD = "acme-demo-2026";

type DemoUser = { email: string; firstName: string; lastName: string; role: RoleName; workspaces: string[] };

export const DEMO_USERS: DemoUser[] = [
  {
    email: "admin@acme.test",
    firstName: "Ada",
    lastName: "Admin",
    role: "Admin",
    workspaces: ["Safety Research", "Red Team", "Accuracy Benchmarks"],
  },
  {
    email: "member@acme.test",
    firstName: "Max",
    lastName: "Member",
    role: "Member",
    workspaces: ["Safety Research"],
  },
  { email: "newcomer@acme.test", firstName: "Nia", lastName: "Newcomer", role: "Member", workspaces: [] },
];

export const DEMO_WORKSPACES = ["Safety Research", "Red Team", "Accuracy Benchmarks"];

export type SeedResult =
  | { created: true; password: string; generatedPassword: boolean }
  | { created: false; reason: string };

/**
 * Creates the demo organization, its users and workspaces. Idempotent and resumable: a finished
 * demo is left alone, and a run cut short is completed (each piece is looked up before it is
 * made). The password is DEMO_PASSWORD, the documented default for the embedded database, or a
 * generated one (printed once) for a real PostgreSQL.
 */
export async function seedDemo(
  deps: { identity: IdentityAdmin; workspaces: WorkspaceStore },
  opts: { password: string | undefined; generate: boolean },
): Promise<SeedResult> {
  const { identity, workspaces } = deps;
  const existing = await Promise.all(DEMO_USERS.map((u) => identity.findUserByEmail(u.email)));
  if (existing.every(Boolean)) return { created: false, reason: "the demo organization already exists" };
  const generatedPassword = opts.password === undefined && opts.generate;
  const password =
    opts.password ?? (opts.generate ? randomBytes(12).toString("base64url") : DEFAULT_DEMO_PASSWORD);

  const org =
    (await identity.findOrganizationBySlug(DEMO_ORG.slug)) ??
    (await identity.createOrganization(DEMO_ORG.name, DEMO_ORG.slug));
  const spaces = new Map<string, string>();
  for (const name of DEMO_WORKSPACES) {
    const ws = (await workspaces.findByName(org.id, name)) ?? (await workspaces.create(org.id, name));
    spaces.set(name, ws.workspaceUuid);
  }
  for (const [i, u] of DEMO_USERS.entries()) {
    const user =
      existing[i] ??
      (await identity.createUser({ email: u.email, password, firstName: u.firstName, lastName: u.lastName }));
    await identity.addMember(org.id, user.id, u.role);
    for (const w of u.workspaces) {
      const uuid = spaces.get(w);
      if (uuid) await workspaces.addMember(uuid, { id: user.id, email: u.email });
    }
  }
  return { created: true, password, generatedPassword };
}
