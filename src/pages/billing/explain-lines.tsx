// The lines of a node or part in "Explain this charge": one per price rule version (its id, version
// and quantity × unit price = cost) and one per adjustment (its cost and notes, since the arithmetic
// does not apply to it).
import { Flex, Tag, Tooltip, Typography } from "antd";
import type { ExplainLine } from "../../../contract/usage-explain";
import { formatUtcDate } from "../../lib/billing/dates";
import { arithmeticText, formatExact, lineTitle } from "../../lib/billing/explain";

const NUMBERS = { fontVariantNumeric: "tabular-nums" } as const;

function Rule({ line, compact }: { line: ExplainLine; compact: boolean }) {
  const title = lineTitle(line);
  return (
    <Flex gap={8} wrap align="baseline">
      {line.price_rule_uuid && !compact ? (
        <Tooltip title={`Price rule ${line.price_rule_uuid}, version ${line.price_rule_version ?? 1}`}>
          <Typography.Text type="secondary" copyable={{ text: line.price_rule_uuid }}>
            {title}
          </Typography.Text>
        </Tooltip>
      ) : (
        <Typography.Text type="secondary">{title}</Typography.Text>
      )}
      <Typography.Text style={NUMBERS} data-testid="explain-arithmetic">
        {arithmeticText(line)}
      </Typography.Text>
    </Flex>
  );
}

function Other({ line }: { line: ExplainLine }) {
  const note =
    line.kind === "adjustment"
      ? [line.notes ?? "No note", line.occurred_at ? formatUtcDate(line.occurred_at) : null]
          .filter(Boolean)
          .join(" · ")
      : line.kind === "unitemized"
        ? "Counted in the bill; its month's events are archived"
        : "Summed on one line";
  return (
    <Flex gap={8} wrap align="baseline">
      <Tag color={line.kind === "unitemized" ? "default" : "gold"} style={{ marginInlineEnd: 0 }}>
        {lineTitle(line)}
      </Tag>
      <Typography.Text style={NUMBERS}>{formatExact(line.cost)}</Typography.Text>
      <Typography.Text type="secondary">{note}</Typography.Text>
    </Flex>
  );
}

/**
 * Lines as a list; `testId` marks each line for the checks that add them up. `compact` (a table of
 * parts, up to a page of them) leaves out the rule's copy button and tooltip: hundreds of those
 * made a page of parts take seconds to draw.
 */
export function ExplainLines({
  lines,
  testId,
  compact = false,
}: {
  lines: readonly ExplainLine[];
  testId?: string;
  compact?: boolean;
}) {
  if (!lines.length) return <Typography.Text type="secondary">No usage</Typography.Text>;
  return (
    <Flex vertical gap={2}>
      {lines.map((line, i) => (
        <div
          // Lines have no id of their own; their order is the server's and stable.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={i}
          data-testid={testId}
          data-cost={line.cost}
        >
          {line.kind === "rule" ? <Rule line={line} compact={compact} /> : <Other line={line} />}
        </div>
      ))}
    </Flex>
  );
}
