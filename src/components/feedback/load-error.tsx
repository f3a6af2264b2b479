// A block that could not load (a card's content, not a table's rows): what failed, the reason,
// and Retry, which reads it again.
import { Alert, Button } from "antd";

type Props = { message: string; query: { error?: { message?: string } | null; refetch: () => unknown } };

export function LoadError({ message, query }: Props) {
  return (
    <Alert
      type="error"
      showIcon
      message={message}
      description={query.error?.message}
      action={<Button onClick={() => query.refetch()}>Retry</Button>}
    />
  );
}
