// What a record's own page (one workspace, one eval run) shows until its record is there: a
// spinner while it loads, "not found" when the API says there is no such record (or the id in the
// URL cannot be one), else the load error with the way back. One place, so these pages behave alike.
import type { HttpError } from "@refinedev/core";
import { Alert, Flex, Result, Spin } from "antd";
import type { ReactNode } from "react";

type Options = {
  query: { isLoading: boolean; isError: boolean; error?: HttpError | null };
  /** Whether the record arrived. */
  found: boolean;
  backLink: ReactNode;
  /** Result title for a missing record, e.g. "Workspace not found". */
  notFound: string;
  /** Alert message for any other failure, e.g. "The workspace could not be loaded." */
  failed: string;
  /** API statuses that mean "no such record" (a malformed id is refused with 400). */
  missingStatuses?: readonly number[];
};

/** The page to show instead of the record, or null once the record is there. */
export function recordFallback(o: Options): ReactNode | null {
  const { query } = o;
  if (query.isLoading) {
    return (
      <Spin tip="Loading...">
        <div style={{ minHeight: 160 }} />
      </Spin>
    );
  }
  const status = query.error?.statusCode;
  const missing = o.missingStatuses ?? [404, 400];
  if ((status !== undefined && missing.includes(status)) || (!query.isError && !o.found)) {
    return <Result status="404" title={o.notFound} extra={o.backLink} />;
  }
  if (query.isError || !o.found) {
    return (
      <Flex vertical gap={16}>
        {o.backLink}
        <Alert type="error" showIcon message={o.failed} description={query.error?.message} />
      </Flex>
    );
  }
  return null;
}
