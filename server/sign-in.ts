// The demo sign-in the start banner prints. A password is printed only when the product chose it
// (generated now, or the documented default): one set through DEMO_PASSWORD is the operator's own
// secret, and a start banner ends up in terminals, CI logs and log collectors.
import type { Config } from "./platform/config";
import { DEFAULT_DEMO_PASSWORD, DEMO_USERS, type SeedResult, shownDemoPassword } from "./seed";

/** The banner's "Demo sign-in (note):" and what its password line says. */
export type DemoSignIn = { note: string; password: string };

const FROM_DEMO_PASSWORD: DemoSignIn = {
  note: "DEMO_PASSWORD",
  password: "the one set in DEMO_PASSWORD (not printed)",
};

/**
 * What the banner says about the demo's password: `seeded` is this start's seed (null when it did
 * not seed).
 */
export function demoSignIn(
  config: Pick<Config, "demoPassword" | "database">,
  seeded: SeedResult | null,
): DemoSignIn {
  if (seeded?.created) {
    const shown = shownDemoPassword(seeded);
    if (shown === null) return FROM_DEMO_PASSWORD;
    return seeded.passwordSource === "generated"
      ? { note: "generated now; it is not shown again", password: shown }
      : { note: "documented default", password: shown };
  }
  if (config.demoPassword) return FROM_DEMO_PASSWORD;
  if (seeded && config.database.kind === "pglite")
    return { note: "documented default, unless changed", password: DEFAULT_DEMO_PASSWORD };
  return {
    note: "chosen when the demo was created",
    password: "(set when the demo was first created; `npm run seed` prints a new one only on a new database)",
  };
}

/** The start banner: where the product listens, the demo sign-in, and where a new demo's key is. */
export function signInLines(config: Config, signIn: DemoSignIn, demoKeyLine: string | null): string[] {
  return [
    "",
    "  Eval Console is running",
    `    Console + API   ${config.publicUrl}`,
    `    Identity        ${config.authPublicUrl}`,
    `    Database        ${config.database.kind === "pglite" ? `PGlite in ${config.database.dataDir}` : `PostgreSQL (DATABASE_URL${config.database.readUrl ? "; usage reads from DATABASE_READ_URL" : ""})`}`,
    "",
    `  Demo sign-in (${signIn.note}):`,
    ...DEMO_USERS.map(
      (u) =>
        `    ${u.email.padEnd(20)} ${u.role === "Admin" ? "administrator" : u.workspaces.length ? "member" : "member, no workspace"}`,
    ),
    `    password: ${signIn.password}`,
    ...(demoKeyLine ? ["", `  ${demoKeyLine}`, `    POST ${config.apiPublicUrl}/v1/usage/events`] : []),
    "",
  ];
}
