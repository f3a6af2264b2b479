// Full-screen placeholder while the session or the current user loads (spec §2: "Loading...").
import { Flex, Spin, Typography } from "antd";

export function LoadingScreen({ text = "Loading..." }: { text?: string }) {
  return (
    <Flex vertical align="center" justify="center" gap={16} style={{ minHeight: "100vh" }}>
      <Spin size="large" />
      <Typography.Text role="status" aria-live="polite">
        {text}
      </Typography.Text>
    </Flex>
  );
}
