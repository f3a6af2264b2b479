// A job's progress as antd's Progress bar: done of total, moving while it runs, green once done,
// red when it failed; its state in words beside it (a queued job waits its turn: an organization's
// price changes re-rate one after the other).
import { Flex, Progress, Tag } from "antd";
import { JOB_STATES, jobCount, jobPercent, type OperatorJob } from "../../lib/operator-jobs";

const STATUS = { queued: "normal", running: "active", done: "success", failed: "exception" } as const;

type Props = { job: Pick<OperatorJob, "job_uuid" | "state" | "done" | "total">; width?: number };

export function JobProgress({ job, width = 220 }: Props) {
  const state = JOB_STATES[job.state];
  return (
    <Flex align="center" gap={8} wrap={false}>
      <Tag color={state.color} style={{ marginInlineEnd: 0 }}>
        {state.label}
      </Tag>
      <Progress
        percent={jobPercent(job)}
        status={STATUS[job.state]}
        size="small"
        style={{ width, margin: 0 }}
        aria-label={`Progress of job ${job.job_uuid}`}
        format={() => jobCount(job)}
      />
    </Flex>
  );
}
