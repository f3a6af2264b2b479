import { spawn } from "node:child_process";
import { join } from "node:path";

// The server's command line as a child process (tsx server/main.ts …, or the built
// dist-server/server/main.js) on the embedded database unless env says otherwise, with its output
// collected.

const tsx = join("node_modules", ".bin", "tsx");

export function runCli(env: Record<string, string>, args: string[], opts: { built?: boolean } = {}) {
  const [command, entry] = opts.built
    ? [process.execPath, ["--enable-source-maps", join("dist-server", "server", "main.js")]]
    : [tsx, ["server/main.ts"]];
  const child = spawn(command, [...entry, ...args], {
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
