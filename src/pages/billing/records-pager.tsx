// First / Previous / Next / Last and 'Page X of Y (N total records)' (the spec's pager, which antd's
// Pagination has no first and last buttons for), on the records table's page and page count.
import { DoubleLeftOutlined, DoubleRightOutlined, LeftOutlined, RightOutlined } from "@ant-design/icons";
import { Button, Flex, Typography } from "antd";
import { pagerText } from "../../lib/billing/paging";

type Props = {
  page: number;
  pages: number;
  total: number;
  busy: boolean;
  /** Shown instead of the page and total while a new result is on its way ("Searching..."). */
  pending?: string | null;
  onPage: (page: number) => void;
};

export function RecordsPager({ page, pages, total, busy, pending, onPage }: Props) {
  const atStart = page <= 1;
  const atEnd = page >= pages;
  return (
    <Flex justify="space-between" align="center" wrap gap={8} style={{ marginTop: 16 }}>
      <Typography.Text
        type="secondary"
        data-testid="records-pagination"
        aria-live="polite"
        aria-busy={pending ? true : undefined}
      >
        {pending ?? pagerText(page, pages, total)}
      </Typography.Text>
      <Flex gap={8} role="navigation" aria-label="Records pages">
        <Button
          icon={<DoubleLeftOutlined />}
          aria-label="First page"
          disabled={busy || atStart}
          onClick={() => onPage(1)}
        />
        <Button
          icon={<LeftOutlined aria-hidden />}
          aria-label="Previous page"
          disabled={busy || atStart}
          onClick={() => onPage(page - 1)}
        >
          Previous
        </Button>
        <Button
          disabled={busy || atEnd}
          onClick={() => onPage(page + 1)}
          iconPosition="end"
          icon={<RightOutlined aria-hidden />}
          aria-label="Next page"
        >
          Next
        </Button>
        <Button
          icon={<DoubleRightOutlined />}
          aria-label="Last page"
          disabled={busy || atEnd}
          onClick={() => onPage(pages)}
        />
      </Flex>
    </Flex>
  );
}
