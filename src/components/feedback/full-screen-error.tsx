// Full-screen failure for problems that leave nothing useful to render (no config, no session
// service, no account data). Offers a retry where one can help.
import { Button, Flex, Result } from "antd";
import type { ReactNode } from "react";

type Props = { title: string; message: ReactNode; onRetry?: () => void; retryLabel?: string };

export function FullScreenError({ title, message, onRetry, retryLabel = "Try again" }: Props) {
  return (
    <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
      <Result
        status="error"
        title={title}
        subTitle={message}
        extra={
          onRetry ? (
            <Button type="primary" onClick={onRetry}>
              {retryLabel}
            </Button>
          ) : null
        }
      />
    </Flex>
  );
}
