import { spawn } from "node:child_process";
import { join } from "node:path";
import { inject } from "vitest";

// The server's command line as a child process on the embedded database unless env says
// otherwise, with its output collected: the server project's built bundle (tests/server/
// server-bundle.ts), or the sources through tsx where no bundle was provided.

function bundle(): string {
  try {
    return inject("serverBundle");
  } catch {
    return "";
  }
}

/** The command and its arguments that run `args` on the server's command line. */
export function serverCommand(args: string[]): [string, string[]] {
  const built = bundle();
  return built
    ? [process.execPath, ["--enable-source-maps", built, ...args]]
    : [join("node_modules", ".bin", "tsx"), ["server/main.ts", ...args]];
}

export function runCli(env: Record<string, string>, args: string[]) {
  const [command, argv] = serverCommand(args);
  const child = spawn(command, argv, {
    env: { ...process.env, DATABASE_URL: "", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => out, err: () => err };
}

/** Polls `check` every 100 ms until it holds; throws after `ms`. */
export async function waitFor(check: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("timed out");
}

/**
 * A bearer token of a demo user of a served product, signed in through the hosted form as a
 * browser posts it (from the identity service's own origin), then refreshed.
 */
export async function accessTokenOverHttp(authUrl: string, email: string, password: string): Promise<string> {
  const login = await fetch(`${authUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: authUrl },
    body: new URLSearchParams({ email, password }).toString(),
    redirect: "manual",
  });
  if (login.status !== 303) throw new Error(`sign-in of ${email} answered ${login.status}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const refreshed = await fetch(`${authUrl}/api/v1/refresh_token`, { headers: { cookie } });
  return ((await refreshed.json()) as { access_token: string }).access_token;
}
