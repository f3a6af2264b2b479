// Placeholder while the session, the current user or a page's code loads (spec §2: "Loading...").
// Full screen before the shell exists; inside the shell's content area (`fullScreen={false}`) while
// a page's chunk is fetched, so the sider and header stay put.
import { Flex, Spin, Typography } from "antd";

export function LoadingScreen({
  text = "Loading...",
  fullScreen = true,
}: {
  text?: string;
  fullScreen?: boolean;
}) {
  return (
    <Flex
      vertical
      align="center"
      justify="center"
      gap={16}
      style={{ minHeight: fullScreen ? "100vh" : "50vh" }}
      data-testid={fullScreen ? undefined : "page-loading"}
    >
      <Spin size="large" />
      <Typography.Text role="status" aria-live="polite">
        {text}
      </Typography.Text>
    </Flex>
  );
}
