import { describe, expect, it } from "vitest";
import { CSV_HEADERS, CSV_PRICING_HEADERS, MAX_EXPORT_ROWS } from "../../contract/usage-csv";
import { ExportCancelled, ExportInterrupted, exportRefusal, readCsvExport } from "../../src/lib/billing/csv";

// The console's CSV export reader: a transfer the server breaks part way (an export that failed
// after its first bytes) is reported as a failure, never saved as a shorter file.

const encoder = new TextEncoder();
const HEADER = `${CSV_HEADERS.join(",")}\r\n`;
const ROW = "2026-02-01T00:00:00.000Z,eval,generation,safety,,,Lab,,1,0.01,0.01,\r\n";

/** A response body that sends `chunks`, then ends, or fails like a cut connection. */
function body(chunks: string[], end: "complete" | "broken") {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else if (end === "complete") controller.close();
      else controller.error(new TypeError("terminated"));
    },
  }).getReader();
}

describe("reading a streamed CSV export", () => {
  it("returns every chunk of a complete export and reports the text as it arrives", async () => {
    const seen: string[] = [];
    const parts = await readCsvExport(body([HEADER, ROW, ROW], "complete"), { onText: (t) => seen.push(t) });
    expect(parts).toHaveLength(3);
    expect(seen.join("")).toBe(HEADER + ROW + ROW);
  });

  it("fails with ExportInterrupted when the transfer breaks part way, even after the header", async () => {
    const read = readCsvExport(body([HEADER, ROW], "broken"));
    await expect(read).rejects.toBeInstanceOf(ExportInterrupted);
    await expect(readCsvExport(body([HEADER, ROW], "broken"))).rejects.toThrow(
      "The export was interrupted before it finished; no file was saved. Please try again.",
    );
  });

  it("refuses an answer that is not the export, and stops when cancelled", async () => {
    await expect(readCsvExport(body(['{"error":{}}'], "complete"))).rejects.toThrow(
      "The export did not return the expected CSV columns.",
    );
    await expect(
      readCsvExport(body([HEADER, ROW], "complete"), { cancelled: () => true }),
    ).rejects.toBeInstanceOf(ExportCancelled);
  });

  it("checks the header of the export asked for: with pricing details, the spec's and the four after them", async () => {
    const detailed = `${CSV_PRICING_HEADERS.join(",")}\r\n`;
    const detailedRow = ROW.replace("\r\n", ",,,,\r\n");
    expect(
      await readCsvExport(body([detailed, detailedRow], "complete"), { details: "pricing" }),
    ).toHaveLength(2);
    await expect(readCsvExport(body([HEADER, ROW], "complete"), { details: "pricing" })).rejects.toThrow(
      "The export did not return the expected CSV columns.",
    );
    await expect(readCsvExport(body([detailed, detailedRow], "complete"))).rejects.toThrow(
      "The export did not return the expected CSV columns.",
    );
  });

  it("does not start an export larger than the server sends", () => {
    expect(exportRefusal(MAX_EXPORT_ROWS)).toBeNull();
    expect(exportRefusal(MAX_EXPORT_ROWS + 1)).toBe(
      "An export holds at most 1,000,000 records; these filters match 1,000,001. Narrow the filters or export a shorter billing cycle.",
    );
  });
});
