// Honest placeholder for screens whose data arrives with later work: no invented numbers.
import { Empty } from "antd";

export function NotBuiltYet({ description }: { description: string }) {
  return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={description} />;
}
