// Export to CSV: streams /v1/usage/export.csv (the whole filtered result, newest first; the spec's
// columns, or with details=pricing the pricing details after them), counts rows as they arrive for
// the progress indicator, and saves usage_data_{date}.csv.
import { App } from "antd";
import { useCallback, useRef, useState } from "react";
import type { CsvDetails } from "../../../contract/usage-csv";
import {
  createLineCounter,
  ExportCancelled,
  exportPercent,
  exportRefusal,
  hasExpectedHeader,
  readCsvExport,
} from "../../lib/billing/csv";
import { exportFileName } from "../../lib/billing/dates";
import type { UsageQuery } from "../../lib/billing/filters";
import { saveDownload } from "../../lib/save-download";
import { useServices } from "../../providers/services";

/** An export under way: its details (null: the spec's columns alone) and how far it is. */
export type ExportProgress = { details: CsvDetails | null; rows: number; expected: number; percent: number };

export function useCsvExport() {
  const { apiFetch } = useServices();
  const { message } = App.useApp();
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  const cancelled = useRef(false);

  const start = useCallback(
    async (query: UsageQuery, expected: number, details: CsvDetails | null = null) => {
      cancelled.current = false;
      const refusal = exportRefusal(expected);
      if (refusal) {
        message.error(refusal);
        return;
      }
      setProgress({ details, rows: 0, expected, percent: 0 });
      try {
        const blob = await apiFetch<Blob>("/v1/usage/export.csv", {
          query: details ? { ...query, details } : query,
          headers: { Accept: "text/csv" },
          read: async (response) => {
            const reader = response.body?.getReader();
            if (!reader) {
              const text = await response.text();
              if (!hasExpectedHeader(text.slice(0, 2048), details))
                throw new Error("The export did not return the expected CSV columns.");
              return new Blob([text], { type: "text/csv;charset=utf-8" });
            }
            const counter = createLineCounter();
            let shown = 0;
            // A broken transfer (the server failed part way) is an error, never a shorter file.
            const parts = await readCsvExport(reader, {
              cancelled: () => cancelled.current,
              details,
              onText: (text) => {
                const lines = counter.push(text);
                const percent = exportPercent(lines, expected);
                if (percent !== shown) {
                  shown = percent;
                  setProgress({ details, rows: Math.max(0, lines - 1), expected, percent });
                }
              },
            });
            return new Blob(parts as Uint8Array<ArrayBuffer>[], { type: "text/csv;charset=utf-8" });
          },
        });
        saveDownload(blob, exportFileName());
        message.success(`Exported ${expected.toLocaleString("en-US")} records`);
      } catch (error) {
        if (!(error instanceof ExportCancelled)) {
          message.error(`Export failed: ${(error as Error).message}`);
        }
      } finally {
        setProgress(null);
      }
    },
    [apiFetch, message],
  );

  const cancel = useCallback(() => {
    cancelled.current = true;
  }, []);

  return { start, cancel, progress };
}
