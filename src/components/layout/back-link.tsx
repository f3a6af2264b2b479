// The way back from a record's page to its list ("Back to Workspaces"), through Refine's routes.
import { ArrowLeftOutlined } from "@ant-design/icons";
import { useLink, useNavigation } from "@refinedev/core";

export function BackLink({ resource, label }: { resource: string; label: string }) {
  const Link = useLink();
  const { listUrl } = useNavigation();
  return (
    <Link to={listUrl(resource)}>
      <ArrowLeftOutlined aria-hidden /> Back to {label}
    </Link>
  );
}
