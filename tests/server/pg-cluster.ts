// A private, throwaway PostgreSQL cluster for fault tests that stop and start the database: the
// machine's shared server is never touched. initdb and the server refuse to run as root, so when
// the tests run as root the cluster belongs to the `postgres` user (through runuser).
import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export type PgCluster = {
  url: string;
  port: number;
  /** Stops the server; "immediate" is a crash (no shutdown checkpoint; WAL replay on start). */
  stop(mode: "fast" | "immediate"): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
};

/** The newest installed PostgreSQL's bin directory, or null. */
function binDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

function ownerIds(user: string): Promise<{ uid: number; gid: number } | null> {
  return run("id", ["-u", user])
    .then(async (u) => ({ uid: Number(u.stdout), gid: Number((await run("id", ["-g", user])).stdout) }))
    .catch(() => null);
}

/** Why a private cluster cannot be made here, or null if it can. */
export async function clusterUnavailable(): Promise<string | null> {
  if (!binDir()) return "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql";
  if (userInfo().uid !== 0) return null;
  if (!existsSync("/usr/sbin/runuser") && !existsSync("/sbin/runuser"))
    return "running as root and runuser is missing (initdb refuses root)";
  if (!(await ownerIds("postgres")))
    return "running as root and there is no postgres user (initdb refuses root)";
  return null;
}

/** initdb + start on `port` with trust authentication for local TCP connections only. */
export async function createCluster(port: number): Promise<PgCluster> {
  const bin = binDir();
  if (!bin) throw new Error("no PostgreSQL binaries");
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), "eval-console-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  if (asRoot) {
    const ids = await ownerIds("postgres");
    if (!ids) throw new Error("no postgres user");
    chownSync(dir, ids.uid, ids.gid);
    chmodSync(dir, 0o700);
  }
  const tool = (name: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, name), ...args]) : run(join(bin, name), args);
  await tool("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  // Its own socket directory, TCP on 127.0.0.1 only, small memory: it is a test fixture.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB -c max_connections=40`;
  const start = async () =>
    void (await tool("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "-t", "30", "start"]));
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop: async (mode) => void (await tool("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "30", "stop"])),
    async destroy() {
      await tool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
