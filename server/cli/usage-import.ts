/**
 * `usage import <file> --org <org> [--backfill]`. On the embedded database with a server running on
 * its data directory, the file is streamed to that server's operator API (the command must not open
 * the directory beside it); otherwise it is read into the database here. Both print the same lines
 * and exit the same way: 1 when any event was rejected or the import was refused.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { progressBar } from "../demo-cli";
import { BillingError, resolveOrganization } from "../metering/billing/billing";
import { formatOf, ImportError, type ImportResult, importUsageFile } from "../metering/ingestion/import";
import type { MeteringCommand } from "../metering/shared/cli-args";
import type { Config } from "../platform/config";
import { openProduct } from "./open-product";
import { findRunningServer, type RunningServer } from "./running-server";

type ImportCommand = Extract<MeteringCommand, { kind: "import" }>;
type Outcome = Pick<
  ImportResult,
  "events" | "accepted" | "duplicates" | "rejected" | "rejections" | "seconds"
> & { awaitingPricing?: number };

/** The rejections the command lists; the counts cover the others. */
const LISTED = 20;

/** A refusal the command prints as its one line (exit 1). */
class ImportRefused extends Error {}

const fileName = (path: string) => path.split(/[\\/]/).pop() ?? path;

/** Runs the command and answers its exit status. */
export async function runUsageImport(config: Config, cmd: ImportCommand): Promise<number> {
  const running = config.database.kind === "pglite" ? findRunningServer(config.database.dataDir) : null;
  try {
    const { org, result } = running ? await throughServer(running, cmd) : await onDatabase(config, cmd);
    return report(cmd.file, org, result);
  } catch (err) {
    if (!(err instanceof ImportRefused || err instanceof ImportError || err instanceof BillingError))
      throw err;
    console.error(err.message);
    return 1;
  }
}

/** The rejections, then the one line of counts; 1 when any event was rejected. */
function report(file: string, org: string, r: Outcome): number {
  for (const x of r.rejections.slice(0, LISTED))
    console.error(`  line ${x.line}${x.event_id ? ` (${x.event_id})` : ""}: ${x.reason}`);
  const listed = Math.min(r.rejections.length, LISTED);
  if (r.rejected > listed) console.error(`  … and ${r.rejected - listed} more rejected.`);
  const rate = r.seconds > 0 ? Math.round(r.events / r.seconds) : r.events;
  // Accepted events no price rule matches yet: stored, priced once a rule covers them.
  const awaiting = r.awaitingPricing ? ` (${r.awaitingPricing} awaiting pricing)` : "";
  console.log(
    `Imported ${file} into ${org}: ${r.accepted} accepted${awaiting}, ${r.duplicates} duplicates, ${r.rejected} rejected (${r.events} events in ${r.seconds.toFixed(1)} s, ${rate}/s).`,
  );
  return r.rejected ? 1 : 0;
}

/** On the database itself, with live counts on the bar. */
async function onDatabase(config: Config, cmd: ImportCommand) {
  const product = await openProduct(config);
  try {
    const db = product.database.db;
    const org = await resolveOrganization(db, cmd.org);
    const bar = progressBar(
      "  {file} [{bar}] {percentage}% | {events} events: {accepted} accepted, {duplicates} duplicates, {rejected} rejected",
    );
    let started = false;
    const file = fileName(cmd.file);
    const result = await importUsageFile(db, org.id, cmd.file, {
      backfill: cmd.backfill,
      maxAgeDays: config.usageMaxAgeDays,
      onProgress(p) {
        const payload = {
          file,
          events: p.events,
          accepted: p.accepted,
          duplicates: p.duplicates,
          rejected: p.rejected,
        };
        if (!started) bar.start(p.totalBytes || 1, 0, payload);
        started = true;
        bar.update(Math.min(p.bytes, p.totalBytes || 1), payload);
      },
    });
    if (started) {
      bar.update(result.totalBytes || 1);
      bar.stop();
    }
    return { org: org.name, result };
  } finally {
    await product.close();
  }
}

/**
 * Through the running server: the organization is looked up first (a wrong --org is one line, not
 * a file sent for nothing), then the file is streamed as the request body, the bar following the
 * bytes sent; the counts come with the answer.
 */
async function throughServer(server: RunningServer, cmd: ImportCommand) {
  const format = formatOf(cmd.file);
  if (!format) throw new ImportRefused(`${cmd.file}: the file must end in .csv, .ndjson or .jsonl.`);
  let size: number;
  try {
    const s = await stat(cmd.file);
    if (!s.isFile()) throw new ImportRefused(`${cmd.file} is not a file.`);
    size = s.size;
  } catch (err) {
    if (err instanceof ImportRefused) throw err;
    throw new ImportRefused(
      `Cannot read ${cmd.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
    );
  }
  const org = await getJson<{ organization_uuid: string; name: string }>(
    server,
    `/v1/operator/organizations/${encodeURIComponent(cmd.org)}`,
  );
  const bar = progressBar("  {file} [{bar}] {percentage}% | sent to the server, importing");
  bar.start(size || 1, 0, { file: fileName(cmd.file) });
  try {
    const result = await upload(
      server,
      `/v1/operator/organizations/${encodeURIComponent(org.organization_uuid)}/usage/import?backfill=${cmd.backfill}`,
      cmd.file,
      { type: format === "csv" ? "text/csv" : "application/x-ndjson", size },
      (sent) => bar.update(Math.min(sent, size || 1)),
    );
    bar.update(size || 1);
    const answer = result as Outcome & { awaiting_pricing?: number };
    return { org: org.name, result: { ...answer, awaitingPricing: answer.awaiting_pricing ?? 0 } };
  } finally {
    bar.stop();
  }
}

const unreachable = (server: RunningServer, err: unknown) =>
  new ImportRefused(
    `The server running on this data directory does not answer at ${server.url} (${(err as Error).message}).`,
  );

/** The API's answer as JSON, or its error message as the command's refusal. */
async function answer<T>(status: number, text: string): Promise<T> {
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: the status says it.
  }
  if (status >= 200 && status < 300) return json as T;
  throw new ImportRefused(
    (json as { error?: { message?: string } } | null)?.error?.message ?? `The server answered ${status}.`,
  );
}

async function getJson<T>(server: RunningServer, path: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${server.operator_key}` },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw unreachable(server, err);
  }
  return answer<T>(res.status, await res.text());
}

/**
 * POSTs the file as the body with node:http, which sets no time limit on a long upload or on the
 * wait for the answer while the server stores the last batches. An answer that comes before the
 * whole file was sent (a refusal) ends the upload.
 */
function upload(
  server: RunningServer,
  path: string,
  file: string,
  body: { type: string; size: number },
  onSent: (bytes: number) => void,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const input = createReadStream(file, { highWaterMark: 1 << 20 });
    let settled = false;
    const done = (err: unknown, value?: unknown) => {
      if (settled) return;
      settled = true;
      input.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const req = send(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${server.operator_key}`,
        "content-type": body.type,
        "content-length": body.size,
      },
    });
    req.on("response", (res: IncomingMessage) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => answer(res.statusCode ?? 0, text).then((v) => done(null, v), done));
      res.on("error", (err) => done(unreachable(server, err)));
    });
    // After an early answer the server may close while the rest is still being sent: the answer counts.
    req.on("error", (err) => setTimeout(() => done(unreachable(server, err)), 200));
    let sent = 0;
    input.on("data", (chunk) => {
      sent += chunk.length;
      onSent(sent);
    });
    input.on("error", (err) => {
      req.destroy();
      done(new ImportRefused(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err.message}.`));
    });
    input.pipe(req);
  });
}
