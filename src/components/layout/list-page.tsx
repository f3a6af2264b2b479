// The list page kit (API keys, the operator's lists): the resource's list frame, Refresh and its
// Create button in the header, then one card holding the page's intro, filters and table 16px
// apart. Dialogs and form modals go beside the card.
import { Card, Flex, Typography } from "antd";
import type { ReactNode } from "react";
import { type CreateAction, ListActions, ResourceCreateButton } from "../table/list-actions";
import { PageList } from "./page-list";

type Props = {
  resource: string;
  title: string;
  query: { refetch: () => unknown; isFetching: boolean };
  /** The header's Create button, for a list one can add to. */
  create?: Omit<CreateAction, "resource">;
  /** What the list holds, in a line or two above it. */
  intro?: ReactNode;
  children: ReactNode;
  modals?: ReactNode;
};

export function ListPage({ resource, title, query, create, intro, children, modals }: Props) {
  return (
    <PageList
      resource={resource}
      title={title}
      headerButtons={
        <ListActions query={query}>
          {create ? <ResourceCreateButton resource={resource} {...create} /> : null}
        </ListActions>
      }
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      <Card>
        <Flex vertical gap={16}>
          {intro ? (
            <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
              {intro}
            </Typography.Paragraph>
          ) : null}
          {children}
        </Flex>
      </Card>
      {modals}
    </PageList>
  );
}
