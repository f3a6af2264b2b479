// A list's header buttons: Refresh (the list again), then the resource's Create button, which
// Refine's access control disables or hides for those who may not create.
import { CreateButton } from "@refinedev/antd";
import { Flex } from "antd";
import type { ReactNode } from "react";
import { RefetchButton } from "../refetch-button";

type Props = {
  query: { refetch: () => unknown; isFetching: boolean };
  resource: string;
  icon: ReactNode;
  label: string;
  onCreate: () => void;
};

export function RefreshAndCreate({ query, resource, icon, label, onCreate }: Props) {
  return (
    <Flex gap={8} wrap>
      <RefetchButton query={query} />
      <CreateButton resource={resource} type="primary" icon={icon} onClick={onCreate}>
        {label}
      </CreateButton>
    </Flex>
  );
}
