// 'Export to CSV' (the spec's columns) and beside it 'Export with pricing details' (the same
// columns, then the price rule and late usage ones), and, while a larger export streams, its
// progress with a Cancel button. Two plain buttons: each is a tab stop and answers Enter and Space.
import { DownloadOutlined } from "@ant-design/icons";
import { Button, Flex, Progress, Tooltip, Typography } from "antd";
import { CSV_HEADERS, CSV_PRICING_HEADERS, type CsvDetails } from "../../../contract/usage-csv";
import type { UsageQuery } from "../../lib/billing/filters";
import { useCsvExport } from "./use-csv-export";

/** Exports below this many records finish too fast for a progress bar to help. */
const PROGRESS_FROM_ROWS = 2_000;

const PRICING_DETAILS = `Adds ${CSV_PRICING_HEADERS.slice(CSV_HEADERS.length).join(", ")} after the columns of Export to CSV.`;

export function ExportControl({ query, total }: { query: UsageQuery | null; total: number }) {
  const { start, cancel, progress } = useCsvExport();
  const showProgress = progress && progress.expected >= PROGRESS_FROM_ROWS;
  const button = (details: CsvDetails | null, label: string) => (
    <Button
      icon={<DownloadOutlined />}
      // One export at a time: the one running spins, the other waits.
      loading={progress?.details === details}
      disabled={!query || total === 0 || (!!progress && progress.details !== details)}
      onClick={() => query && start(query, total, details)}
    >
      {label}
    </Button>
  );
  return (
    <Flex align="center" gap={12} wrap>
      {showProgress ? (
        <Flex align="center" gap={8} data-testid="export-progress" role="status" aria-live="polite">
          <Progress type="circle" size={28} percent={progress.percent} showInfo={false} />
          <Typography.Text type="secondary" style={{ fontVariantNumeric: "tabular-nums" }}>
            {progress.rows.toLocaleString("en-US")} of {progress.expected.toLocaleString("en-US")} records
          </Typography.Text>
          <Button size="small" type="text" onClick={cancel}>
            Cancel
          </Button>
        </Flex>
      ) : null}
      {/* Side by side, wrapping on a narrow screen rather than widening the page. */}
      <Flex wrap gap={8}>
        {button(null, "Export to CSV")}
        <Tooltip title={PRICING_DETAILS}>{button("pricing", "Export with pricing details")}</Tooltip>
      </Flex>
    </Flex>
  );
}
