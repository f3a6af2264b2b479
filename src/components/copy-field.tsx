// A value shown once for the user to take away (an API key, a signing secret): read-only, selected
// on focus, with a Copy button that says whether the copy worked. One place, so the one-time
// secrets of the console look and behave alike.
import { CopyOutlined } from "@ant-design/icons";
import { useNotification } from "@refinedev/core";
import { Button, Flex, Input, Space, Typography } from "antd";

type Props = {
  id: string;
  label: string;
  value: string;
  /** The success notification's message. */
  copiedText: string;
  /** The copy button's accessible name. */
  copyLabel?: string;
  /** Repeated copies replace one notification instead of stacking. */
  notificationKey: string;
};

export function CopyField({ id, label, value, copiedText, copyLabel, notificationKey }: Props) {
  const { open } = useNotification();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      open?.({ type: "success", key: notificationKey, message: copiedText });
    } catch {
      open?.({
        type: "error",
        key: notificationKey,
        message: "Copy failed",
        description: "Select the text and copy it.",
      });
    }
  };
  return (
    <Flex vertical gap={4}>
      <Typography.Text strong>
        <label htmlFor={id}>{label}</label>
      </Typography.Text>
      <Space.Compact style={{ width: "100%" }}>
        <Input
          id={id}
          value={value}
          readOnly
          style={{ fontFamily: "monospace" }}
          onFocus={(e) => e.target.select()}
        />
        <Button icon={<CopyOutlined />} aria-label={copyLabel ?? `Copy ${label}`} onClick={copy}>
          Copy
        </Button>
      </Space.Compact>
    </Flex>
  );
}
