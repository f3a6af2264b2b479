// A failed statement's parameters never reach a log line: they carry callers' data (an email, a
// name, an amount), and Drizzle writes them into its error's message ("params: …") as well as on
// the error itself. Checked through the product API's error handler and the logger's other ways of
// being handed an error, on both databases.

import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../server/platform/database";
import { installApiErrors } from "../../server/platform/errors";
import { createHttpApp } from "../../server/platform/http";
import { createLogger } from "../../server/platform/logger";
import { backends } from "./harness";

const EMAIL = "leaky.caller@example.test";
const NAME = "Quarterly secret eval";
const HUGE = "1000000000000000000";

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: createLogger("info", stream as never), text: () => lines.join("") };
}

/** A statement that fails (bigint overflow), carrying the caller's values as parameters. */
const failing = (db: Db) =>
  db.execute(
    sql`select ${EMAIL}::text as who, ${NAME}::text as name, ${HUGE}::bigint * ${HUGE}::bigint as n`,
  );

describe.each(backends())("failed statements in logs on $name", (backend) => {
  let db: Db;
  let drop: () => Promise<void>;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.database.db;
    close = () => opened.database.close();
    drop = opened.drop;
  });
  afterAll(async () => {
    await close();
    await drop();
  });

  const expectNoValues = (text: string) => {
    expect(text).not.toContain(EMAIL);
    expect(text).not.toContain(NAME);
    expect(text).not.toContain(HUGE);
  };

  it("the API's 500 line names the failure, not the statement's parameters", async () => {
    const { logger, text } = capturingLogger();
    const app = createHttpApp(logger);
    installApiErrors(app);
    app.get("/boom", async () => failing(db));
    const res = await app.inject("/boom");
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain(EMAIL);
    const logged = text();
    expect(logged).toContain("unhandled error");
    // The SQL and the database's own complaint stay: they are what an operator debugs with.
    expect(logged).toMatch(/out of range/);
    expect(logged).toContain("params: [REDACTED]");
    expectNoValues(logged);
    await app.close();
  });

  it("an error logged directly, or under another key, is cleaned the same way", async () => {
    const err = await failing(db).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    // The raw error does carry them: what the logger must strip.
    expect(`${err?.message} ${JSON.stringify(err)}`).toContain(EMAIL);
    const { logger, text } = capturingLogger();
    logger.error({ err }, "with err");
    logger.error(err as Error);
    logger.warn({ error: err, context: { failure: err } }, "under other keys");
    expect(text().split("\n").filter(Boolean)).toHaveLength(3);
    expectNoValues(text());
  });
});
