// The parts of a node in "Explain this charge": one row per part (click, or Enter on its name, to go
// down a level) with its lines and its cost, rows for the parts on other pages, and a footer that
// adds the rows up beside the node's total.
import { CheckCircleFilled, WarningFilled } from "@ant-design/icons";
import { Button, Empty, Flex, Pagination, Table, Typography } from "antd";
import type { ReactNode } from "react";
import type { ExplainNode, ExplainPart, UsageExplain } from "../../../contract/usage-explain";
import { EXPLAIN_PAGE_SIZE, type ExplainLevel } from "../../../contract/usage-explain-query";
import { formatUtcDateTime } from "../../lib/billing/dates";
import { formatExact, partsCheck } from "../../lib/billing/explain";
import { ExplainLines } from "./explain-lines";

const PART_TITLES: Record<ExplainLevel, string> = {
  cycle: "Billing cycle",
  group: "Workspace group",
  workspace: "Workspace",
  eval_run: "Eval run",
  event: "Event",
};

type Row =
  | { key: string; kind: "part"; part: ExplainPart }
  | { key: string; kind: "earlier" | "later"; parts: number; cost: string; page: number };

const NUMBERS = { fontVariantNumeric: "tabular-nums", whiteSpace: "nowrap" } as const;
const plural = (n: number, one: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : `${one}s`}`;

export function ExplainParts({
  answer,
  loading,
  onOpen,
  onPage,
}: {
  answer: UsageExplain;
  loading: boolean;
  onOpen: (node: ExplainNode) => void;
  onPage: (page: number) => void;
}) {
  const level = answer.parts_level;
  if (!level) return null;
  const title = PART_TITLES[level];
  const rows: Row[] = [];
  if (answer.earlier.parts)
    rows.push({ key: "~earlier", kind: "earlier", ...answer.earlier, page: answer.page - 1 });
  answer.parts.forEach((part, i) => {
    rows.push({ key: `${i}:${part.label}`, kind: "part", part });
  });
  if (answer.later.parts) rows.push({ key: "~later", kind: "later", ...answer.later, page: answer.page + 1 });
  const check = partsCheck(answer);

  const name = (row: Row): ReactNode => {
    if (row.kind !== "part") {
      const where = row.kind === "earlier" ? "on earlier pages" : "on later pages";
      return (
        <Button type="link" style={{ padding: 0 }} onClick={() => onPage(row.page)}>
          {`${plural(row.parts, title.toLowerCase())} ${where}`}
        </Button>
      );
    }
    const { part } = row;
    const sub = [part.description, part.occurred_at ? formatUtcDateTime(part.occurred_at) : null]
      .filter(Boolean)
      .join(" · ");
    return (
      <Flex vertical>
        {part.node ? (
          <Button
            type="link"
            style={{
              padding: 0,
              height: "auto",
              textAlign: "left",
              whiteSpace: "normal",
              alignSelf: "flex-start",
            }}
            onClick={(e) => {
              e.stopPropagation();
              if (part.node) onOpen(part.node);
            }}
          >
            {part.label}
          </Button>
        ) : (
          <Typography.Text>{part.label}</Typography.Text>
        )}
        {sub ? (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {sub}
          </Typography.Text>
        ) : null}
      </Flex>
    );
  };

  return (
    <>
      <Table<Row>
        size="small"
        rowKey="key"
        data-testid="explain-parts"
        loading={loading}
        dataSource={rows}
        locale={{
          emptyText: (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No usage here in this billing period" />
          ),
        }}
        onRow={(row) =>
          ({
            "data-testid": row.kind === "part" ? "explain-part" : `explain-${row.kind}`,
            style: row.kind === "part" && row.part.node ? { cursor: "pointer" } : undefined,
            onClick: () => {
              if (row.kind === "part" && row.part.node) onOpen(row.part.node);
            },
          }) as React.HTMLAttributes<HTMLElement>
        }
        // Paged by the server; the rows for the other pages' parts come on top of a page, so antd
        // must not cut the rows to a page size of its own: the pager is below the table.
        pagination={false}
        // On a phone the drawer is the screen's width: the table scrolls sideways rather than squeeze.
        scroll={{ x: 640 }}
        columns={[
          { key: "name", title, render: (_, row) => name(row) },
          {
            key: "lines",
            title: "Rule × quantity = cost",
            render: (_, row) =>
              row.kind === "part" ? (
                <ExplainLines lines={row.part.lines} compact />
              ) : (
                <Typography.Text type="secondary">Summed</Typography.Text>
              ),
          },
          {
            key: "events",
            title: "Events",
            align: "right",
            render: (_, row) =>
              row.kind === "part" ? (
                <span style={NUMBERS}>{row.part.events.toLocaleString("en-US")}</span>
              ) : null,
          },
          {
            key: "cost",
            title: "Cost",
            align: "right",
            render: (_, row) => (
              <span style={NUMBERS} data-testid="explain-part-cost">
                {formatExact(row.kind === "part" ? row.part.cost : row.cost)}
              </span>
            ),
          },
        ]}
        summary={() =>
          rows.length ? (
            <Table.Summary.Row>
              <Table.Summary.Cell index={0} colSpan={3}>
                <Flex gap={8} align="center">
                  {check.equal ? (
                    <CheckCircleFilled style={{ color: "#49aa19" }} aria-hidden />
                  ) : (
                    <WarningFilled style={{ color: "#d89614" }} aria-hidden />
                  )}
                  <Typography.Text strong>
                    {check.equal
                      ? `Sum of the ${plural(answer.parts_count, "part")} = ${answer.label}`
                      : "The parts do not add up to the total"}
                  </Typography.Text>
                </Flex>
              </Table.Summary.Cell>
              <Table.Summary.Cell index={1} align="right">
                <Typography.Text strong style={NUMBERS} data-testid="explain-parts-sum">
                  {formatExact(check.sum)}
                </Typography.Text>
              </Table.Summary.Cell>
            </Table.Summary.Row>
          ) : null
        }
      />
      {answer.parts_count > EXPLAIN_PAGE_SIZE ? (
        <Flex justify="flex-end" style={{ marginTop: 12 }}>
          <Pagination
            size="small"
            current={answer.page}
            pageSize={EXPLAIN_PAGE_SIZE}
            total={answer.parts_count}
            showSizeChanger={false}
            onChange={onPage}
          />
        </Flex>
      ) : null}
    </>
  );
}
