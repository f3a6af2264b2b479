// "Refresh" for a list the user watches change (their API keys, an endpoint's deliveries): fetches
// the list again and spins while it does, so the click visibly did something.
import { ReloadOutlined } from "@ant-design/icons";
import { Button } from "antd";

type Props = { query: { refetch: () => unknown; isFetching: boolean } };

export function RefetchButton({ query }: Props) {
  return (
    <Button icon={<ReloadOutlined />} onClick={() => query.refetch()} loading={query.isFetching}>
      Refresh
    </Button>
  );
}
