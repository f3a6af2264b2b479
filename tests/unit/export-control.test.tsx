// The records' export buttons: "Export to CSV" asks for the spec's columns, "Export with pricing
// details" beside it for the same with the pricing details (details=pricing), each reachable and
// started from the keyboard, and each saves only a file with its own columns.

import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ExportControl } from "../../src/pages/billing/export-control";
import { api, renderPage } from "./support/render-page";

// jsdom cannot download: the file the console saves (a Blob URL on a link it clicks) is kept here.
// Spies rather than a module mock, which a shared module graph (isolate: false) may not apply.
const saved: { name: string; blob: Blob }[] = [];
const urls = new Map<string, Blob>();
const createObjectURL = URL.createObjectURL;
const revokeObjectURL = URL.revokeObjectURL;
beforeEach(() => {
  saved.length = 0;
  URL.createObjectURL = (blob: Blob) => {
    const url = `blob:export-${urls.size}`;
    urls.set(url, blob);
    return url;
  };
  URL.revokeObjectURL = () => {};
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    const blob = urls.get(this.href);
    if (blob && this.download) saved.push({ name: this.download, blob });
  });
});
afterEach(() => {
  URL.createObjectURL = createObjectURL;
  URL.revokeObjectURL = revokeObjectURL;
  vi.restoreAllMocks();
});

/** A saved file's text (jsdom's Blob has no text()). */
const textOf = (blob: Blob | undefined) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.readAsText(blob ?? new Blob());
  });

const CYCLE = "22222222-2222-4222-8222-222222222222";
const SPEC =
  "Date,Eval,Operation,Eval Type,Eval ID,Run ID,Workspace,Created By,Quantity,Unit Price,Cost,Price Adjustment Note";
const PRICING = `${SPEC},Price Rule ID,Price Rule Version,Late From Period,Late Occurred At`;
const ROW = "2026-02-01T00:00:00.000Z,Eval 1,generation,safety,,,Lab,,1,0.01,0.01,";

/** The export as the API answers it: the columns its `details` parameter asks for. */
function exportApi(asked: (string | null)[]) {
  return http.get(api("/v1/usage/export.csv"), ({ request }) => {
    const details = new URL(request.url).searchParams.get("details");
    asked.push(details);
    const text = details === "pricing" ? `${PRICING}\r\n${ROW},,,,\r\n` : `${SPEC}\r\n${ROW}\r\n`;
    return new HttpResponse(text, { headers: { "content-type": "text/csv; charset=utf-8" } });
  });
}

describe("the records' CSV export buttons", () => {
  it("export the spec's columns, or with pricing details, from the keyboard", async () => {
    const asked: (string | null)[] = [];
    renderPage(<ExportControl query={{ billing_cycle_uuid: CYCLE }} total={1} />, {
      handlers: [exportApi(asked)],
    });
    const user = userEvent.setup();
    const plain = await screen.findByRole("button", { name: /Export to CSV$/ });
    const detailed = screen.getByRole("button", { name: /Export with pricing details$/ });

    await user.tab();
    expect(plain).toHaveFocus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(await textOf(saved[0]?.blob)).toBe(`${SPEC}\r\n${ROW}\r\n`);
    expect(saved[0]?.name).toMatch(/^usage_data_\d{4}-\d{2}-\d{2}\.csv$/);

    await user.tab();
    expect(detailed).toHaveFocus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(saved).toHaveLength(2));
    expect((await textOf(saved[1]?.blob)).split("\r\n")[0]).toBe(PRICING);
    expect(asked).toEqual([null, "pricing"]);
  });

  it("saves nothing when the answer does not have the columns the button asked for", async () => {
    saved.length = 0;
    renderPage(<ExportControl query={{ billing_cycle_uuid: CYCLE }} total={1} />, {
      // An API that ignores details: the spec's columns where the pricing details were asked for.
      handlers: [
        http.get(
          api("/v1/usage/export.csv"),
          () => new HttpResponse(`${SPEC}\r\n${ROW}\r\n`, { headers: { "content-type": "text/csv" } }),
        ),
      ],
    });
    await userEvent.click(await screen.findByRole("button", { name: /Export with pricing details$/ }));
    expect(
      await screen.findByText("Export failed: The export did not return the expected CSV columns."),
    ).toBeInTheDocument();
    expect(saved).toHaveLength(0);
  });
});
