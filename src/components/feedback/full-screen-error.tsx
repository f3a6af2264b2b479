// Full-screen failure for problems that leave nothing useful to render (no config, no session
// service, no account data). Offers a retry where one can help.
import { Button, Flex, Result } from "antd";
import type { ReactNode } from "react";

type Props = {
  title: string;
  message: ReactNode;
  onRetry?: () => void;
  retryLabel?: string;
  /** A retry is under way: the button shows it and does not start another. */
  retrying?: boolean;
};

export function FullScreenError({
  title,
  message,
  onRetry,
  retryLabel = "Try again",
  retrying = false,
}: Props) {
  return (
    <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
      <Result
        status="error"
        title={title}
        subTitle={message}
        extra={
          onRetry ? (
            <Button type="primary" onClick={onRetry} loading={retrying}>
              {retryLabel}
            </Button>
          ) : null
        }
      />
    </Flex>
  );
}
