import { screen, waitFor, within } from "@testing-library/react";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { OperatorJob } from "../../src/lib/operator-jobs";
import { OperatorJobShowPage } from "../../src/pages/operator/job-show-page";
import { OperatorJobsListPage } from "../../src/pages/operator/jobs-list-page";
import { operatorJobs } from "../../src/resources/operator-jobs";
import { api, renderPage } from "./support/render-page";

// The operator's Jobs list and a job's page: each job's state and progress bar (done of total), read
// again while a job is queued or running, until it ends.

const OPERATOR = { is_admin: false, is_operator: true, email: "ops@provider.test" };
const ACME = "0b5d7a3c-1111-4e2f-9a6b-0c1d2e3f4a5b";
const RULE = "a0000000-0000-4000-8000-000000000001";
const id = (n: number) => `d0000000-0000-4000-8000-00000000000${n}`;

const job = (over: Partial<OperatorJob> = {}): OperatorJob => ({
  job_uuid: id(1),
  kind: "price-rerate",
  organization_uuid: ACME,
  state: "running",
  done: 1_200,
  total: 5_000,
  created_at: "2026-11-02T09:00:00.000Z",
  run_after: "2026-11-02T09:00:00.000Z",
  started_at: "2026-11-02T09:00:01.000Z",
  finished_at: null,
  error: null,
  price_rule_uuid: RULE,
  ...over,
});

/** The row of a job in the list, by its uuid. */
const rowOf = (uuid: string) => screen.getByText(uuid).closest("tr") as HTMLElement;
/** antd's status of a job's bar: active (moving), success, exception or normal. */
const barStatus = (uuid: string) =>
  /ant-progress-status-(\w+)/.exec(screen.getByLabelText(`Progress of job ${uuid}`).className)?.[1];

describe("Jobs page", () => {
  it("shows each state with its bar, and reads the list again while a job runs until it ends", async () => {
    let reads = 0;
    const answers = [
      [job(), job({ job_uuid: id(2), state: "queued", done: 0, total: 800, started_at: null })],
      [
        job({ state: "done", done: 5_000, finished_at: "2026-11-02T09:00:09.000Z" }),
        job({ job_uuid: id(2), state: "running", done: 400, total: 800 }),
      ],
      [
        job({ state: "done", done: 5_000, finished_at: "2026-11-02T09:00:09.000Z" }),
        // A recurring task waits queued for its next run: no reason to read the list again.
        job({
          job_uuid: id(3),
          kind: "audit-retention",
          state: "queued",
          done: 0,
          total: null,
          run_after: "2999-01-01T00:00:00.000Z",
          organization_uuid: null,
        }),
        job({
          job_uuid: id(2),
          state: "failed",
          done: 400,
          total: 800,
          finished_at: "2026-11-02T09:00:12.000Z",
          error: "the database went away",
        }),
      ],
    ];
    renderPage(<OperatorJobsListPage />, {
      route: "/operator/jobs",
      me: OPERATOR,
      handlers: [
        http.get(api("/v1/operator/jobs"), () => {
          const jobs = answers[Math.min(reads, answers.length - 1)];
          reads++;
          return HttpResponse.json({ jobs });
        }),
      ],
    });
    expect(await screen.findByText(id(1))).toBeInTheDocument();
    expect(within(rowOf(id(1))).getByText("Running")).toBeInTheDocument();
    expect(within(rowOf(id(1))).getByText("1,200 of 5,000")).toBeInTheDocument();
    expect(barStatus(id(1))).toBe("active");
    expect(within(rowOf(id(2))).getByText("Queued")).toBeInTheDocument();
    expect(barStatus(id(2))).toBe("normal");
    expect(within(rowOf(id(2))).getByText("Not yet")).toBeInTheDocument();
    expect(
      within(rowOf(id(1))).getByRole("link", { name: "Re-rating after a price change" }),
    ).toHaveAttribute("href", `/operator/jobs/${id(1)}`);

    // Read again by itself: the first is done (a full, green bar), the second runs.
    await waitFor(() => expect(within(rowOf(id(1))).getByText("Done")).toBeInTheDocument(), {
      timeout: 6_000,
    });
    expect(within(rowOf(id(1))).getByText("5,000 of 5,000")).toBeInTheDocument();
    expect(barStatus(id(1))).toBe("success");
    // Then the second fails, with its error, and the list stops reading.
    await waitFor(() => expect(within(rowOf(id(2))).getByText("Failed")).toBeInTheDocument(), {
      timeout: 6_000,
    });
    expect(within(rowOf(id(2))).getByText("the database went away")).toBeInTheDocument();
    expect(barStatus(id(2))).toBe("exception");
    const settled = reads;
    await new Promise((r) => setTimeout(r, 2_500));
    expect(reads).toBe(settled);
  }, 20_000);

  it("says when there are no jobs", async () => {
    renderPage(<OperatorJobsListPage />, {
      route: "/operator/jobs",
      me: OPERATOR,
      handlers: [http.get(api("/v1/operator/jobs"), () => HttpResponse.json({ jobs: [] }))],
    });
    expect(await screen.findByText("No jobs yet")).toBeInTheDocument();
  });
});

describe("A job's page", () => {
  it("follows a job until it is done and links its price rule", async () => {
    let reads = 0;
    renderPage(<OperatorJobShowPage />, {
      route: "/operator/jobs/:id",
      path: `/operator/jobs/${id(1)}`,
      me: OPERATOR,
      handlers: [
        http.get(api(`/v1/operator/jobs/${id(1)}`), () =>
          HttpResponse.json(
            reads++ === 0
              ? job()
              : job({ state: "done", done: 5_000, finished_at: "2026-11-02T09:00:09.000Z" }),
          ),
        ),
      ],
    });
    expect(
      await screen.findByRole("heading", { name: "Re-rating after a price change" }),
    ).toBeInTheDocument();
    expect(screen.getByText("1,200 of 5,000")).toBeInTheDocument();
    expect(await screen.findByText("5,000 of 5,000", {}, { timeout: 6_000 })).toBeInTheDocument();
    expect(screen.getByText("Done")).toBeInTheDocument();
    expect(screen.getByText(RULE).closest("a")).toHaveAttribute("href", "/operator/price-rules");
  }, 15_000);

  it("says so for a job that does not exist", async () => {
    renderPage(<OperatorJobShowPage />, {
      route: "/operator/jobs/:id",
      path: `/operator/jobs/${id(3)}`,
      me: OPERATOR,
      handlers: [
        http.get(api(`/v1/operator/jobs/${id(3)}`), () =>
          HttpResponse.json({ error: { code: "not_found", message: "No job." } }, { status: 404 }),
        ),
      ],
    });
    expect(await screen.findByText("Job not found")).toBeInTheDocument();
    expect(operatorJobs.meta.label).toBe("Jobs");
  });
});
