// "Explain this charge": a drawer over Billing & Usage that takes the cycle's Total Cost apart, one
// level at a time (workspace groups, workspaces, eval runs, events). A breadcrumb leads back up;
// each level shows its total, its lines per price rule (quantity × unit price = cost) and
// adjustments, and its parts, which add up to the total. Where it is lives in the address.
import { type HttpError, useCustom } from "@refinedev/core";
import { Alert, Breadcrumb, Button, Card, Drawer, Flex, Skeleton, Typography } from "antd";
import { memo } from "react";
import type { UsageExplain } from "../../../contract/usage-explain";
import { useIsMobile } from "../../hooks/use-is-mobile";
import { useOpenedOnce } from "../../hooks/use-opened-once";
import { periodLabel } from "../../lib/billing/dates";
import { explainQuery, formatExact, linesCheck, TOP } from "../../lib/billing/explain";
import { ExplainLines } from "./explain-lines";
import { ExplainParts } from "./explain-parts";
import type { ExplainState } from "./use-explain-state";

const keepPrevious = <T,>(previous: T) => previous;

type Cycle = {
  billing_cycle_uuid: string;
  billing_cycle_start_date: string;
  billing_cycle_end_date: string | null;
};

function useExplain(cycleUuid: string | undefined, state: ExplainState) {
  const view = state.view;
  const { query } = useCustom<UsageExplain, HttpError>({
    url: "/v1/usage/explain",
    method: "get",
    config: { query: cycleUuid && view ? explainQuery(cycleUuid, view.node, view.page) : {} },
    errorNotification: false,
    // The last answer stays on screen (dimmed) until the next one is in: nothing jumps or shows zero.
    queryOptions: { enabled: !!cycleUuid && !!view, placeholderData: keepPrevious },
  });
  const data = query.data?.data;
  return { answer: data && typeof data.total === "string" ? data : undefined, query };
}

function Header({ answer }: { answer: UsageExplain }) {
  const lines = linesCheck(answer);
  return (
    <Card size="small" style={{ marginBottom: 16 }}>
      <Flex justify="space-between" align="flex-start" gap={16} wrap>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="explain-label">
            {answer.label}
          </Typography.Title>
          <Typography.Text type="secondary">
            {answer.events.toLocaleString("en-US")} {answer.events === 1 ? "event" : "events"}
          </Typography.Text>
        </div>
        <Typography.Text
          strong
          style={{ fontSize: 24, fontVariantNumeric: "tabular-nums" }}
          data-testid="explain-total"
        >
          {formatExact(answer.total)}
        </Typography.Text>
      </Flex>
      <Typography.Text type="secondary" style={{ display: "block", margin: "12px 0 4px" }}>
        {answer.parts_level ? "By price rule and adjustment" : "How its cost is made"}
      </Typography.Text>
      <ExplainLines lines={answer.lines} testId="explain-line" />
      {!answer.parts_level ? (
        <Typography.Text strong style={{ display: "block", marginTop: 8 }} data-testid="explain-lines-sum">
          {lines.equal ? "= " : "≠ "}
          {formatExact(lines.sum)}
        </Typography.Text>
      ) : null}
    </Card>
  );
}

type Props = { cycle: Cycle | undefined; state: ExplainState };

/** Mounted once a charge is first explained (or the address opens one): closed, the drawer and its
 * query would only add to the page's first render. */
function ExplainDrawerView(props: Props) {
  return useOpenedOnce(!!props.state.view) ? <ExplainDrawerContent {...props} /> : null;
}

function ExplainDrawerContent({ cycle, state }: Props) {
  const mobile = useIsMobile();
  const { answer, query } = useExplain(cycle?.billing_cycle_uuid, state);
  const open = !!state.view;
  // While a new node loads, the previous answer is shown dimmed; a first load shows a skeleton.
  const stale = query.isFetching && !!answer;
  return (
    <Drawer
      title="Explain this charge"
      open={open}
      onClose={state.close}
      width={mobile ? "100%" : 820}
      destroyOnHidden
      extra={
        cycle ? (
          <Typography.Text type="secondary">
            {periodLabel(cycle.billing_cycle_start_date, cycle.billing_cycle_end_date)}
          </Typography.Text>
        ) : null
      }
    >
      {query.isError ? (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 16 }}
          message="This part of the bill could not be explained."
          description={query.error?.message}
          action={
            <Flex vertical gap={8}>
              <Button size="small" onClick={() => query.refetch()}>
                Retry
              </Button>
              {state.view?.node.level !== "cycle" ? (
                <Button size="small" onClick={() => state.go(TOP)}>
                  Back to Total Cost
                </Button>
              ) : null}
            </Flex>
          }
        />
      ) : null}
      {answer ? (
        <div aria-busy={stale || undefined} style={{ opacity: stale ? 0.6 : 1, transition: "opacity 0.2s" }}>
          <Breadcrumb
            style={{ marginBottom: 12 }}
            items={answer.path.map((crumb, i) => ({
              key: `${i}`,
              title:
                i === answer.path.length - 1 ? (
                  <span aria-current="page">{crumb.label}</span>
                ) : (
                  <Button
                    type="link"
                    size="small"
                    style={{ padding: 0, height: "auto" }}
                    onClick={() => state.go(crumb.node)}
                  >
                    {crumb.label}
                  </Button>
                ),
            }))}
          />
          <Header answer={answer} />
          <ExplainParts answer={answer} loading={stale} onOpen={state.go} onPage={state.setPage} />
        </div>
      ) : !query.isError ? (
        <div aria-busy="true" data-testid="explain-loading">
          <Skeleton active title={{ width: "40%" }} paragraph={{ rows: 3 }} />
          <Skeleton active title={false} paragraph={{ rows: 6 }} />
        </div>
      ) : null}
    </Drawer>
  );
}

/** Memoized: the billing page re-renders on each of its reads' answers; this part only when its own props change. */
export const ExplainDrawer = memo(ExplainDrawerView);
