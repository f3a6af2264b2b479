// A labelled multi-select dropdown: the trigger shows a summary and a count badge; the menu has
// an "All" item that clears, optional shortcut items, then one checkbox per option. It stays open
// while choosing; arrow keys move, Enter toggles, Escape closes.
import { DownOutlined } from "@ant-design/icons";
import { Badge, Button, Checkbox, Dropdown, Flex, type MenuProps, Typography } from "antd";
import { type ReactNode, useId, useState } from "react";

export type MultiSelectOption = { value: string; label: ReactNode; text: string };
export type Shortcut = { key: string; label: string; onSelect: () => void };

const ALL = "__all__";

type Props = {
  label: string;
  allLabel: string;
  summary: string;
  options: readonly MultiSelectOption[];
  selected: readonly string[];
  onToggle: (value: string) => void;
  onClear: () => void;
  shortcuts?: readonly Shortcut[];
  testId: string;
};

export function MultiSelect({
  label,
  allLabel,
  summary,
  options,
  selected,
  onToggle,
  onClear,
  shortcuts = [],
  testId,
}: Props) {
  const [open, setOpen] = useState(false);
  const captionId = useId();
  const items: MenuProps["items"] = [
    { key: ALL, label: allLabel },
    ...shortcuts.map((s) => ({ key: `shortcut:${s.key}`, label: s.label })),
    ...(options.length ? [{ type: "divider" as const }] : []),
    ...options.map((o) => ({
      key: `option:${o.value}`,
      label: (
        <Checkbox checked={selected.includes(o.value)} tabIndex={-1} style={{ pointerEvents: "none" }}>
          {o.label}
        </Checkbox>
      ),
      "aria-label": o.text,
      role: "menuitemcheckbox",
      "aria-checked": selected.includes(o.value),
    })),
  ];
  const onClick: MenuProps["onClick"] = ({ key }) => {
    if (key === ALL) {
      onClear();
      setOpen(false);
    } else if (key.startsWith("shortcut:")) {
      shortcuts.find((s) => `shortcut:${s.key}` === key)?.onSelect();
      setOpen(false);
    } else {
      onToggle(key.slice("option:".length));
    }
  };
  return (
    <Flex vertical gap={4} data-testid={testId} style={{ flex: "1 1 150px", maxWidth: 240 }}>
      <Typography.Text type="secondary" style={{ fontSize: 12 }} id={captionId}>
        {label}
      </Typography.Text>
      <Dropdown
        trigger={["click"]}
        open={open}
        autoFocus
        onOpenChange={(next, info) => {
          if (!next && info.source === "menu") return;
          setOpen(next);
        }}
        menu={
          {
            items,
            onClick,
            selectable: false,
            style: { maxHeight: 360, overflowY: "auto", minWidth: 220 },
            "aria-label": label,
          } as MenuProps
        }
      >
        <Button
          aria-label={`${label}: ${summary}`}
          aria-describedby={captionId}
          style={{ width: "100%", justifyContent: "space-between" }}
        >
          <Flex align="center" gap={8} style={{ width: "100%" }}>
            <span
              style={{
                flex: 1,
                textAlign: "left",
                maxWidth: 200,
                overflow: "hidden",
                textOverflow: "ellipsis",
              }}
            >
              {summary}
            </span>
            {selected.length ? (
              <Badge count={selected.length} size="small" color="#7c6cf2" data-testid={`${testId}-count`} />
            ) : null}
            <DownOutlined style={{ fontSize: 10, opacity: 0.65 }} />
          </Flex>
        </Button>
      </Dropdown>
    </Flex>
  );
}
