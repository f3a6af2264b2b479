// Queries that start with the answers the entry read early: a query of the landing view holds its
// answer from its first render and is not read again when it mounts; a Refresh, a later mount, a
// query whose request differs, and a second query of the same request all ask the API.
import { keys } from "@refinedev/core";
import { QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BILLING_CYCLES_PATH, startBillingEarlyReads } from "../../src/lib/billing/early-reads";
import { DEFAULT_SORT } from "../../src/lib/billing/filters";
import { RECORDS_PAGE_SIZE } from "../../src/lib/billing/paging";
import { clearEarlyReads } from "../../src/lib/early-reads";
import { FirstAnswersQueryClient } from "../../src/providers/first-answers";
import { refineResources } from "../../src/resources";
import { usageRecords } from "../../src/resources/usage-records";
import { fakeEarlyApi, landAs } from "./support/early-api";
import { API_URL } from "./support/fakes";

const CYCLES = [{ billing_cycle_uuid: "c-new", billing_cycle_start_date: "2026-11-01" }];
const ROWS = [{ usage_event_uuid: "e1" }, { usage_event_uuid: "e2" }];

async function landed() {
  const api = fakeEarlyApi({ cycles: CYCLES, rows: ROWS, total: 31 });
  // The entry's early reads of an administrator landing on "/".
  await landAs(startBillingEarlyReads, api, "/", "admin");
  const client = new FirstAnswersQueryClient({}, { urls: { default: API_URL }, resources: refineResources });
  return { fetchImpl: api.fetchImpl, client, early: api.fetchImpl.mock.calls.length };
}

/** The records table's key as Refine's useTable builds it (the resource's meta, then the hook's). */
const recordsKey = (page: number) =>
  keys()
    .data("default")
    .resource(usageRecords.name)
    .action("list")
    .params({
      ...usageRecords.meta,
      query: { billing_cycle_uuid: "c-new" },
      filters: [],
      pagination: { currentPage: page, pageSize: RECORDS_PAGE_SIZE, mode: "server" },
      sorters: [DEFAULT_SORT],
    })
    .get();

const cyclesKey = keys()
  .data("default")
  .mutation("custom")
  .params({ method: "get", url: BILLING_CYCLES_PATH })
  .get();

afterEach(() => clearEarlyReads());

describe("queries that start with the answers read early", () => {
  it("hold the landing view's answers from their first render, and do not read them again on mount", async () => {
    const { fetchImpl, client, early } = await landed();
    const queryFn = vi.fn(async () => ({ data: [], total: 0 }));
    const records = new QueryObserver(client, { queryKey: recordsKey(1), queryFn });
    // What a component's first render reads, before any effect ran.
    expect(
      records.getOptimisticResult(client.defaultQueryOptions({ queryKey: recordsKey(1), queryFn })).data,
    ).toEqual({
      data: [
        { usage_event_uuid: "e1", id: "e1" },
        { usage_event_uuid: "e2", id: "e2" },
      ],
      total: 31,
    });
    // As an answer, not a placeholder: Refine's antd table shows its loading spinner until its
    // query has fetched (`loading: !isFetched`).
    expect(records.getCurrentResult()).toMatchObject({ isFetched: true, isSuccess: true, isFetching: false });
    const cycles = new QueryObserver(client, { queryKey: cyclesKey, queryFn });
    expect(cycles.getCurrentResult().data).toEqual({ data: CYCLES });

    // Mounting (subscribing) reads nothing: neither the query nor the network.
    const off = [records.subscribe(() => {}), cycles.subscribe(() => {})];
    await new Promise((r) => setTimeout(r, 0));
    expect(queryFn).not.toHaveBeenCalled();
    expect(fetchImpl).toHaveBeenCalledTimes(early);

    // A Refresh asks again.
    await records.refetch();
    expect(queryFn).toHaveBeenCalledTimes(1);
    for (const stop of off) stop();

    // Once the page has let go of them, a later mount reads them again (the cycles were never
    // read since the seed).
    const later = vi.fn(async () => ({ data: CYCLES }));
    const back = new QueryObserver(client, { queryKey: cyclesKey, queryFn: later });
    const stop = back.subscribe(() => {});
    await vi.waitFor(() => expect(later).toHaveBeenCalledTimes(1));
    stop();
  });

  it("leave a query whose request differs, and a second query of the same request, to ask the API", async () => {
    const { client } = await landed();
    const page2 = vi.fn(async () => ({ data: [], total: 0 }));
    const other = new QueryObserver(client, { queryKey: recordsKey(2), queryFn: page2 });
    expect(other.getCurrentResult().data).toBeUndefined();
    const stop = other.subscribe(() => {});
    await vi.waitFor(() => expect(page2).toHaveBeenCalledTimes(1));
    stop();

    // The first page's answer went to the query that took it first: built again elsewhere, the
    // same request finds nothing early and is asked for.
    const first = new QueryObserver(client, { queryKey: recordsKey(1), queryFn: page2 });
    expect(first.getCurrentResult().data).toMatchObject({ total: 31 });
    const again = new FirstAnswersQueryClient({}, { urls: { default: API_URL }, resources: refineResources });
    const second = new QueryObserver(again, { queryKey: recordsKey(1), queryFn: page2 });
    expect(second.getCurrentResult().data).toBeUndefined();
  });
});
