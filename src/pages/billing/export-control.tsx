// 'Export to CSV' and, while a larger export streams, its progress with a Cancel button.
import { DownloadOutlined } from "@ant-design/icons";
import { Button, Flex, Progress } from "antd";
import { PlainText } from "../../components/plain-text";
import type { UsageQuery } from "../../lib/billing/filters";
import { useCsvExport } from "./use-csv-export";

/** Exports below this many records finish too fast for a progress bar to help. */
const PROGRESS_FROM_ROWS = 2_000;

export function ExportControl({ query, total }: { query: UsageQuery | null; total: number }) {
  const { start, cancel, progress } = useCsvExport();
  const showProgress = progress && progress.expected >= PROGRESS_FROM_ROWS;
  return (
    <Flex align="center" gap={12}>
      {showProgress ? (
        <Flex align="center" gap={8} data-testid="export-progress" role="status" aria-live="polite">
          <Progress type="circle" size={28} percent={progress.percent} showInfo={false} />
          <PlainText type="secondary" style={{ fontVariantNumeric: "tabular-nums" }}>
            {progress.rows.toLocaleString("en-US")} of {progress.expected.toLocaleString("en-US")} records
          </PlainText>
          <Button size="small" type="text" onClick={cancel}>
            Cancel
          </Button>
        </Flex>
      ) : null}
      <Button
        icon={<DownloadOutlined />}
        loading={!!progress}
        disabled={!query || total === 0}
        onClick={() => query && start(query, total)}
      >
        Export to CSV
      </Button>
    </Flex>
  );
}
