// "/operator/jobs": running and recent jobs, newest first, each with its progress bar, read again
// every few seconds while any of them is queued or running. Provider operators only.
import { useLink, useNavigation } from "@refinedev/core";
import { Flex, Typography } from "antd";
import { ListPage } from "../../components/layout/list-page";
import { JobProgress } from "../../components/operator/job-progress";
import { formatColumn } from "../../components/table/columns";
import { ListTable } from "../../components/table/list-table";
import { useListTable } from "../../components/table/use-list-table";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { jobKindLabel, jobMoving, type OperatorJob } from "../../lib/operator-jobs";
import { operatorJobs as resource } from "../../resources/operator-jobs";
import { operatorOrganizations } from "../../resources/operator-organizations";

export const JOBS_PAGE_SIZE = 20;
/** How often a list with a job under way is read again. */
export const JOBS_REFRESH_MS = 2_000;

export function OperatorJobsListPage() {
  const Link = useLink();
  const { showUrl } = useNavigation();
  const list = useListTable<OperatorJob>({
    resource: resource.name,
    // The API answers the 50 most recent; the table pages them.
    pageSize: JOBS_PAGE_SIZE,
    paging: "client",
    queryOptions: {
      refetchInterval: (q) =>
        (q.state.data?.data ?? []).some((j) => jobMoving(j)) ? JOBS_REFRESH_MS : false,
    },
  });

  return (
    <ListPage
      resource={resource.name}
      title="Jobs"
      query={list.tableQuery}
      intro="Heavy work runs as a job after the call that starts it has answered: re-rating after a price change, usage imports, partition archive and restore. An organization's price changes re-rate one after the other; a later one waits queued."
    >
      <ListTable<OperatorJob>
        list={list}
        failed="The jobs could not be loaded."
        empty="No jobs yet"
        scroll={{ x: 1150 }}
        pager={{ one: "job", single: true }}
        columns={[
          {
            title: "Job",
            dataIndex: "kind",
            key: "kind",
            width: 260,
            render: (kind: string, j) => (
              <Flex vertical gap={0}>
                <Link to={showUrl(resource.name, j.job_uuid)}>{jobKindLabel(kind)}</Link>
                <Typography.Text type="secondary" code style={{ fontSize: 12 }}>
                  {j.job_uuid}
                </Typography.Text>
              </Flex>
            ),
          },
          {
            title: "Organization",
            dataIndex: "organization_uuid",
            key: "organization_uuid",
            width: 150,
            ellipsis: true,
            render: (org: string | null) =>
              org ? <Link to={showUrl(operatorOrganizations.name, org)}>{org}</Link> : "Every organization",
          },
          {
            title: "Progress",
            key: "progress",
            width: 340,
            render: (_, j) => <JobProgress job={j} />,
          },
          formatColumn<OperatorJob>("Started", "started_at", formatUtcDateTime, {
            width: 170,
            empty: "Not yet",
          }),
          formatColumn<OperatorJob>("Finished", "finished_at", formatUtcDateTime, { width: 170, empty: "—" }),
          {
            title: "Error",
            dataIndex: "error",
            key: "error",
            ellipsis: true,
            render: (error: string | null) =>
              error ? <Typography.Text type="danger">{error}</Typography.Text> : null,
          },
        ]}
      />
    </ListPage>
  );
}
