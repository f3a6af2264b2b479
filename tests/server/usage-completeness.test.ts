// Completeness watermarks: a sender's Usage-Complete-Through moves its watermark forward only; the
// organization is complete through the earliest of its senders'; events a sender still stores for
// times it reported complete are counted as late (a resend is not); a bad header stores nothing.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createIngestKey } from "../../server/metering/ingestion/ingest-keys";
import { monthStart } from "../../server/metering/usage/filters";
import { backends } from "./harness";
import { rowsOf } from "./tenants";
import { addCycle, setSamplePrices } from "./usage-setup";
import { productWithWorkspaces } from "./workspaces-fixture";

describe.each(backends())("usage completeness on $name", (backend) => {
  const s = productWithWorkspaces(backend);
  const keys = { a: "", b: "" };
  beforeAll(async () => {
    const db = s.p.database.db;
    await setSamplePrices(db);
    await addCycle(s.p, s.f.acmeId, monthStart(new Date()), null);
    keys.a = (await createIngestKey(db, { name: "evals A", organizationUuid: s.f.acmeId })).token;
    keys.b = (await createIngestKey(db, { name: "evals B", organizationUuid: s.f.acmeId })).token;
  });

  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
  let seq = 0;
  const send = (key: string, at: string, watermark?: string, eventId?: string) => {
    seq += 1;
    return s.p.api.app.inject({
      method: "POST",
      url: "/v1/usage/events",
      headers: { "x-api-key": key, ...(watermark ? { "usage-complete-through": watermark } : {}) },
      payload: {
        events: [
          { event_id: eventId ?? `wm-${seq}`, occurred_at: at, operation: "generation", eval_type: "safety" },
        ],
      },
    });
  };
  const completeness = async (who: "admin" | "other" = "admin") => {
    const res = await s.f.call(who, "GET", "/v1/usage/completeness");
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it("says plainly when no sender vouches for completeness", async () => {
    expect(await completeness()).toMatchObject({
      complete_through: null,
      senders: 0,
      late_events: 0,
      last_late_at: null,
    });
    expect((await send(keys.a, minutesAgo(30))).statusCode).toBe(200);
    expect((await completeness()).complete_through).toBeNull();
  });

  it("moves a sender's watermark forward only, and takes the earliest of the senders'", async () => {
    const t1 = minutesAgo(20);
    expect((await send(keys.a, minutesAgo(21), t1)).statusCode).toBe(200);
    expect(await completeness()).toMatchObject({ complete_through: t1, senders: 1 });
    // An older watermark sent later does not move it back; a newer one moves it on.
    await send(keys.a, minutesAgo(25), minutesAgo(40));
    expect((await completeness()).complete_through).toBe(t1);
    const t2 = minutesAgo(10);
    await send(keys.a, minutesAgo(11), t2);
    expect((await completeness()).complete_through).toBe(t2);
    // A second service behind the first holds the organization back to its own watermark.
    const t3 = minutesAgo(15);
    await send(keys.b, minutesAgo(16), t3);
    expect(await completeness()).toMatchObject({ complete_through: t3, senders: 2 });
    // Another organization sees nothing of it.
    expect((await completeness("other")).complete_through).toBeNull();
    expect((await s.f.call("member", "GET", "/v1/usage/completeness")).statusCode).toBe(403);
  });

  it("counts the events a sender stores for a time it reported complete, once each", async () => {
    const before = (await completeness()).late_events;
    // Sender A reported complete through 10 minutes ago; an event of 12 minutes ago is late.
    const lateAt = minutesAgo(12);
    const res = await send(keys.a, lateAt, undefined, "wm-late-1");
    expect(res.json()).toMatchObject({ accepted: 1 });
    const after = await completeness();
    expect(after.late_events).toBe(before + 1);
    expect(after.last_late_at).not.toBeNull();
    // Listed, newest first, for the dashboard's link to them.
    expect(after.recent_late_events[0]).toMatchObject({ event_id: "wm-late-1", occurred_at: lateAt });
    // Its resend is a duplicate, not another late event; a new event after the watermark is not late.
    expect((await send(keys.a, minutesAgo(12), undefined, "wm-late-1")).json()).toMatchObject({
      duplicates: 1,
    });
    await send(keys.a, minutesAgo(1));
    expect((await completeness()).late_events).toBe(before + 1);
  });

  it("refuses a watermark that is not a time it could vouch for, and stores nothing", async () => {
    const count = async () =>
      Number(
        rowsOf<{ n: number }>(
          await s.p.database.db.execute(sql`select count(*)::int as n from usage_event_keys`),
        )[0]?.n,
      );
    const before = await count();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    for (const [header, message] of [
      ["yesterday", "Usage-Complete-Through must be an ISO 8601 date-time"],
      [future, "must not be more than 5 minutes in the future"],
      ["0001-01-01T00:00:00Z", "Usage-Complete-Through must not be before"],
    ]) {
      const res = await send(keys.a, minutesAgo(1), header);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toContain(message);
    }
    expect(await count()).toBe(before);
  });
});
