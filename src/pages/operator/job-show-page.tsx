// "/operator/jobs/:id": one job, its progress bar and times, read again every few seconds until it
// ends; a re-rating links to the price rule it is for. Provider operators only.
import { type HttpError, useLink, useNavigation, useShow } from "@refinedev/core";
import { Card, Descriptions, Flex, Typography } from "antd";
import { BackLink } from "../../components/layout/back-link";
import { PageShow } from "../../components/layout/page-show";
import { recordFallback } from "../../components/layout/record-fallback";
import { JobProgress } from "../../components/operator/job-progress";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { jobKindLabel, jobMoving, type OperatorJob } from "../../lib/operator-jobs";
import { operatorJobs as resource } from "../../resources/operator-jobs";
import { operatorOrganizations } from "../../resources/operator-organizations";
import { operatorPriceRules } from "../../resources/operator-price-rules";
import { JOBS_REFRESH_MS } from "./jobs-list-page";

export function OperatorJobShowPage() {
  const Link = useLink();
  const { showUrl, listUrl } = useNavigation();
  const { query, result: job } = useShow<OperatorJob, HttpError>({
    resource: resource.name,
    errorNotification: false,
    queryOptions: {
      refetchInterval: (q) => (q.state.data?.data && jobMoving(q.state.data.data) ? JOBS_REFRESH_MS : false),
    },
  });
  const backLink = <BackLink resource={resource.name} label="Jobs" />;
  const fallback = recordFallback({
    query,
    found: !!job,
    backLink,
    notFound: "Job not found",
    failed: "The job could not be loaded.",
  });
  if (fallback !== null || !job) return fallback;
  const org = job.organization_uuid;

  return (
    <Flex vertical gap={16}>
      <div>{backLink}</div>
      <PageShow resource={resource.name} recordItemId={job.job_uuid} title={jobKindLabel(job.kind)}>
        <Card>
          <Descriptions column={{ xs: 1, md: 2 }} bordered size="middle">
            <Descriptions.Item label="Progress" span={2}>
              <JobProgress job={job} width={360} />
            </Descriptions.Item>
            <Descriptions.Item label="Job ID">
              <Typography.Text code copyable={{ text: job.job_uuid }}>
                {job.job_uuid}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label="Organization">
              {org ? <Link to={showUrl(operatorOrganizations.name, org)}>{org}</Link> : "Every organization"}
            </Descriptions.Item>
            <Descriptions.Item label="Queued">{formatUtcDateTime(job.created_at)}</Descriptions.Item>
            <Descriptions.Item label="Started">
              {job.started_at ? formatUtcDateTime(job.started_at) : "Not yet"}
            </Descriptions.Item>
            <Descriptions.Item label="Finished">
              {job.finished_at ? formatUtcDateTime(job.finished_at) : "—"}
            </Descriptions.Item>
            {job.price_rule_uuid ? (
              <Descriptions.Item label="Price rule">
                <Link to={listUrl(operatorPriceRules.name)}>
                  <Typography.Text code>{job.price_rule_uuid}</Typography.Text>
                </Link>
              </Descriptions.Item>
            ) : null}
            {job.error ? (
              <Descriptions.Item label="Error" span={2}>
                <Typography.Text type="danger">{job.error}</Typography.Text>
              </Descriptions.Item>
            ) : null}
          </Descriptions>
        </Card>
      </PageShow>
    </Flex>
  );
}
