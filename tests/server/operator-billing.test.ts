import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog } from "../../server/db/schema";
import { backends } from "./harness";
import { waitForJob } from "./job-wait";
import { productWithWorkspaces } from "./workspaces-fixture";

// The operator API's billing cycles, payments, workspace groups and event months: each effect seen
// through the API, each refusal a 4xx with the error JSON and no write, each change audited.

describe.each(backends())("operator billing API on $name", (backend) => {
  const t = productWithWorkspaces(backend);
  const local = () => ({ authorization: `Bearer ${t.p.identity.ctx.backendApiKey}` });
  const op = (method: "GET" | "POST" | "PUT", url: string, payload?: unknown) =>
    t.f.call("none", method, url, payload, local());

  async function rows() {
    const db = t.p.database.db;
    const q = async (text: string) => (await db.execute(sql.raw(text))) as unknown as { rows: unknown[] };
    return JSON.stringify({
      cycles: (await q("select * from billing_cycles order by billing_cycle_uuid")).rows,
      payments: (await q("select * from payments order by payment_uuid")).rows,
      groups: (await q("select * from workspace_groups order by workspace_group_uuid")).rows,
      members: (await q("select * from workspace_group_members order by 1, 2")).rows,
      months: (await q("select relname from pg_class where relname like 'usage_events_%' order by 1")).rows,
      audit: (await q("select count(*)::int as n from audit_log")).rows,
    });
  }

  async function refused(
    status: number,
    run: () => Promise<{ statusCode: number; body: string; json(): unknown }>,
  ) {
    const before = await rows();
    const res = await run();
    expect(res.statusCode, res.body).toBe(status);
    const err = (res.json() as { error: { code: string; message: string } }).error;
    expect(await rows()).toBe(before);
    return err;
  }

  const audits = async (organizationUuid: string | null, action: string) =>
    t.p.database.db
      .select()
      .from(auditLog)
      .where(
        and(
          organizationUuid === null
            ? sql`${auditLog.organizationUuid} is null`
            : eq(auditLog.organizationUuid, organizationUuid),
          eq(auditLog.action, action as typeof auditLog.$inferSelect.action),
        ),
      )
      .orderBy(auditLog.id);

  it("opens and closes billing cycles, records payments, and refuses what the billing rules refuse", async () => {
    const cycles = "/v1/operator/organizations/globex/billing-cycles";
    expect((await op("GET", cycles)).json()).toEqual({ billing_cycles: [] });

    const opened = await op("POST", cycles, { start_date: "2026-01-01" });
    expect(opened.statusCode, opened.body).toBe(201);
    const first = opened.json();
    expect(first).toMatchObject({
      start_date: "2026-01-01",
      end_date: null,
      status: "open",
      paid_usd: "0.00",
    });

    // Sent without a body: the defaults apply, and another open cycle is refused.
    expect(await refused(409, () => op("POST", cycles))).toEqual({
      code: "conflict",
      message: "A cycle is already open (since 2026-01-01); close it first.",
    });
    expect(
      (await refused(409, () => op("POST", `${cycles}/close`, { end_date: "2026-01-01" }))).message,
    ).toBe("The open cycle starts on 2026-01-01; its end date must be later (got 2026-01-01).");
    for (const body of [
      { end_date: "0001-01-01" },
      { end_date: "2026-02-30" },
      { end_date: "10000-01-01" },
      { end_date: 20260201 },
      { open_next: "no" },
      { end_date: "2026-02-01", x: 1 },
    ])
      await refused(400, () => op("POST", `${cycles}/close`, body));
    await refused(400, () => op("POST", cycles, { start_date: "2026-1-1" }));
    await refused(404, () => op("POST", "/v1/operator/organizations/nope/billing-cycles/close"));

    const closed = await op("POST", `${cycles}/close`, { end_date: "2026-02-01" });
    expect(closed.statusCode, closed.body).toBe(200);
    const { closed: c, opened: next } = closed.json();
    expect(c).toMatchObject({
      billing_cycle_uuid: first.billing_cycle_uuid,
      end_date: "2026-02-01",
      status: "closed",
    });
    expect(next).toMatchObject({ start_date: "2026-02-01", end_date: null, status: "open" });

    // Payments: on the closed cycle, and (by default) on the open one.
    const payments = "/v1/operator/organizations/Globex/payments";
    const paid = await op("POST", payments, {
      amount_usd: "12.50",
      billing_cycle_uuid: c.billing_cycle_uuid,
      note: "Invoice 1",
    });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json()).toMatchObject({
      billing_cycle_uuid: c.billing_cycle_uuid,
      amount_usd: "12.50",
      note: "Invoice 1",
    });
    const refund = await op("POST", payments, { amount_usd: "-0.000001" });
    expect(refund.json()).toMatchObject({ billing_cycle_uuid: next.billing_cycle_uuid, note: null });
    expect(
      (await op("GET", payments)).json().payments.map((p: { amount_usd: string }) => p.amount_usd),
    ).toEqual(["-0.000001", "12.50"]);
    const listed = (await op("GET", cycles)).json().billing_cycles;
    expect(listed).toMatchObject([
      { billing_cycle_uuid: next.billing_cycle_uuid, status: "open", paid_usd: "-0.000001" },
      {
        billing_cycle_uuid: c.billing_cycle_uuid,
        status: "closed",
        paid_usd: "12.50",
        end_date: "2026-02-01",
      },
    ]);
    // The customer's bill shows the payment.
    const bill = await t.f.call(
      "other",
      "GET",
      `/v1/accounts/organization/billingcycles?billing_cycle_uuid=${c.billing_cycle_uuid}`,
    );
    expect(bill.json()).toMatchObject({ paid_amount_usd: "12.50" });
    // And so does the customer's list of cycles, each with its own payments.
    const list = await t.f.call("other", "GET", "/v1/accounts/organization/billingcycles");
    const paidOf = new Map(
      (list.json() as { billing_cycle_uuid: string; paid_amount_usd: string }[]).map((b) => [
        b.billing_cycle_uuid,
        b.paid_amount_usd,
      ]),
    );
    expect(paidOf.get(c.billing_cycle_uuid)).toBe("12.50");
    expect(paidOf.get(next.billing_cycle_uuid)).toBe("-0.000001");

    for (const [body, status, message] of [
      [{ amount_usd: "0" }, 400, "amount_usd cannot be zero."],
      [{ amount_usd: 12.5 }, 400, "amount_usd must be a USD decimal string"],
      [{ amount_usd: "1000000000.01" }, 400, "at most 1,000,000,000 USD either way"],
      [{ amount_usd: "9223372036854.775807" }, 400, "at most 1,000,000,000 USD"],
      [{ amount_usd: "1", note: "a\u0000b" }, 400, "note"],
      [{ amount_usd: "1", billing_cycle_uuid: "nope" }, 400, "billing_cycle_uuid must be a UUID."],
      [{ amount_usd: "1", billing_cycle_uuid: crypto.randomUUID() }, 404, "has no billing cycle"],
    ] as [unknown, number, string][]) {
      const err = await refused(status, () => op("POST", payments, body));
      expect(err.message, JSON.stringify(body)).toContain(message);
    }
    // Acme's cycle is not Globex's.
    const acmeOpened = await op("POST", `/v1/operator/organizations/${t.f.acmeId}/billing-cycles`, {
      start_date: "2026-03-01",
    });
    await refused(404, () =>
      op("POST", payments, { amount_usd: "1", billing_cycle_uuid: acmeOpened.json().billing_cycle_uuid }),
    );

    expect((await audits(t.f.globexId, "billing_cycle.opened")).map((a) => a.after)).toEqual([
      { start_date: "2026-01-01", end_date: null },
    ]);
    expect(await audits(t.f.globexId, "billing_cycle.closed")).toMatchObject([
      {
        source: "cli",
        targetId: c.billing_cycle_uuid,
        before: { end_date: null },
        after: { end_date: "2026-02-01", next_billing_cycle_uuid: next.billing_cycle_uuid },
      },
    ]);
    expect((await audits(t.f.globexId, "payment.recorded")).map((a) => a.after)).toEqual([
      { amount_usd: "12.50", billing_cycle_uuid: c.billing_cycle_uuid, note: "Invoice 1" },
      { amount_usd: "-0.000001", billing_cycle_uuid: next.billing_cycle_uuid, note: null },
    ]);

    // Closing without opening the next leaves no open cycle; then there is nothing to close.
    const last = await op("POST", `${cycles}/close`, { end_date: "2026-03-01", open_next: false });
    expect(last.json()).toMatchObject({ opened: null, closed: { end_date: "2026-03-01" } });
    expect((await refused(409, () => op("POST", `${cycles}/close`))).message).toBe(
      "The organization has no open cycle to close.",
    );
    expect((await refused(409, () => op("POST", cycles, { start_date: "2026-02-15" }))).message).toBe(
      "The new cycle must start on or after 2026-03-01, where the last one ends.",
    );
  });

  it("sets workspace groups by name or uuid, audited with before and after", async () => {
    const url = `/v1/operator/organizations/${t.f.acmeId}/workspace-groups`;
    const red = await t.f.idOf("Red Team");
    const set = await op("PUT", url, {
      name: "Labs",
      prepaid_usd: "2500.00",
      workspaces: ["Safety Research", red],
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({
      name: "Labs",
      prepaid_usd: "2500.00",
      workspaces: ["Red Team", "Safety Research"],
    });
    // Only the prepaid amount: the workspaces stay.
    const again = await op("PUT", url, { name: "Labs", prepaid_usd: "100.25" });
    expect(again.json()).toEqual({ ...set.json(), prepaid_usd: "100.25" });
    const empty = await op("PUT", url, { name: "Empty" });
    expect(empty.json()).toMatchObject({ name: "Empty", prepaid_usd: "0.00", workspaces: [] });
    expect((await op("GET", url)).json().workspace_groups.map((g: { name: string }) => g.name)).toEqual([
      "Empty",
      "Labs",
    ]);

    expect(
      (await refused(404, () => op("PUT", url, { name: "Labs", workspaces: ["Safety Research", "Nope"] })))
        .message,
    ).toBe('No live workspace "Nope" in the organization.');
    for (const body of [
      { name: "" },
      { name: "  " },
      { prepaid_usd: "1" },
      { name: "Labs", prepaid_usd: "-1" },
      { name: "Labs", prepaid_usd: 5 },
      { name: "Labs", workspaces: "Red Team" },
      { name: "Labs", workspaces: [1] },
      { name: "Labs", workspaces: Array.from({ length: 1001 }, (_, i) => `w${i}`) },
      { name: "x\uDC00" },
    ])
      await refused(400, () => op("PUT", url, body));

    expect(await audits(t.f.acmeId, "workspace_group.changed")).toMatchObject([
      {
        targetLabel: "Labs",
        before: null,
        after: { prepaid_usd: "2500.00", workspaces: ["Red Team", "Safety Research"] },
      },
      {
        before: { prepaid_usd: "2500.00" },
        after: { prepaid_usd: "100.25", workspaces: ["Red Team", "Safety Research"] },
      },
      { targetLabel: "Empty", before: null },
    ]);
  });

  it("lists, archives and restores event months, with the events command's refusals", async () => {
    const globex = t.f.globexId;
    // Globex's January: its cycle is closed (the test above), the event a backfill.
    const cycles = (await op("GET", `/v1/operator/organizations/${globex}/billing-cycles`)).json()
      .billing_cycles;
    expect(
      cycles.some(
        (c: { start_date: string; end_date: string | null }) => c.start_date === "2026-01-01" && c.end_date,
      ),
    ).toBe(true);
    const price = await op("POST", "/v1/operator/price-rules", {
      operation: "generation",
      unit_price_usd: "0.01",
      valid_from: "2020-01-01T00:00:00Z",
    });
    await waitForJob(t.p.api.app, local(), price.json().rerating.job_uuid);
    const sent = await t.p.api.app.inject({
      method: "POST",
      url: `/v1/usage/events?organization_uuid=${globex}&backfill=true`,
      headers: local(),
      payload: {
        events: [
          {
            event_id: "op-jan",
            occurred_at: "2026-01-15T12:00:00Z",
            operation: "generation",
            eval_type: "safety",
          },
        ],
      },
    });
    expect(sent.json(), sent.body).toMatchObject({ accepted: 1 });
    const months = (await op("GET", "/v1/operator/event-partitions")).json().months;
    expect(months).toContainEqual(
      expect.objectContaining({ month: "2026-01", table: "usage_events_y2026m01", archived: false }),
    );

    // Archive and restore are jobs: the call answers 202 with the job, the job its outcome.
    const partitionJob = async (path: string) => {
      const res = await op("POST", `/v1/operator/event-partitions/${path}`);
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toMatchObject({ month: path.slice(0, 7), job: { job_uuid: expect.any(String) } });
      const job = await waitForJob(t.p.api.app, local(), res.json().job.job_uuid);
      expect(job.state, JSON.stringify(job)).toBe("done");
      return job.partition;
    };
    expect(await partitionJob("2026-01/archive")).toEqual({
      month: "2026-01",
      status: "archived",
      table: "usage_events_archive_y2026m01",
      rows: 1,
    });
    expect(await partitionJob("2026-01/archive")).toMatchObject({
      month: "2026-01",
      status: "already_archived",
    });
    expect(await partitionJob("2026-01/restore")).toMatchObject({ month: "2026-01", status: "restored" });
    expect(await partitionJob("2026-01/restore")).toMatchObject({ month: "2026-01", status: "not_archived" });
    expect((await audits(null, "event_partition.archived")).map((a) => [a.targetId, a.after])).toEqual([
      ["2026-01", { table: "usage_events_archive_y2026m01", attached: false, rows: 1 }],
    ]);
    expect(await audits(null, "event_partition.restored")).toHaveLength(1);

    // Refused while Globex's billing there is open.
    await t.p.api.app.inject({
      method: "POST",
      url: `/v1/usage/events?organization_uuid=${globex}&backfill=true`,
      headers: local(),
      payload: {
        events: [
          {
            event_id: "op-mar",
            occurred_at: "2026-03-15T12:00:00Z",
            operation: "generation",
            eval_type: "safety",
          },
        ],
      },
    });
    await op("POST", `/v1/operator/organizations/${globex}/billing-cycles`, { start_date: "2026-03-01" });
    const err = await refused(409, () => op("POST", "/v1/operator/event-partitions/2026-03/archive"));
    expect(err.message).toMatch(
      /^2026-03 cannot be archived yet: organization [^ ]+ its billing cycle from 2026-03-01 is still open/,
    );
    expect(
      (await refused(404, () => op("POST", "/v1/operator/event-partitions/1999-01/archive"))).message,
    ).toBe("No partition holds 1999-01.");
    expect(
      (await refused(404, () => op("POST", "/v1/operator/event-partitions/1999-01/restore"))).message,
    ).toBe("No archived table holds 1999-01.");
    for (const month of ["2026-13", "2026-1", "0000-00", "%00", "%ED%A0%80"])
      await refused(400, () => op("POST", `/v1/operator/event-partitions/${month}/archive`));
    await refused(414, () => op("POST", `/v1/operator/event-partitions/${"x".repeat(300)}/archive`));
  });
});
