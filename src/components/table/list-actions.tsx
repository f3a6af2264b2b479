// A list's header buttons (a list page's or a card's): Refresh (the list again), then the list's
// own actions, such as its resource's Create button; a row's destructive action; and the card of a
// list inside a record's page.
import { CreateButton } from "@refinedev/antd";
import { CanAccess } from "@refinedev/core";
import { Button, Card, Flex } from "antd";
import type { ReactNode } from "react";
import { RefetchButton } from "../refetch-button";

type Query = { refetch: () => unknown; isFetching: boolean };

export function ListActions({ query, children }: { query: Query; children?: ReactNode }) {
  return (
    <Flex gap={8} wrap>
      <RefetchButton query={query} />
      {children}
    </Flex>
  );
}

/** What a list's Create button says and does; Refine's access control disables or hides it. */
export type CreateAction = { resource: string; icon: ReactNode; label: string; onCreate: () => void };

export function ResourceCreateButton({ resource, icon, label, onCreate }: CreateAction) {
  return (
    <CreateButton resource={resource} type="primary" icon={icon} onClick={onCreate}>
      {label}
    </CreateButton>
  );
}

type CardProps = { title: string; query: Query; actions?: ReactNode; children: ReactNode };

/** A list on a record's page (an organization's cycles, payments, price rules): a card with its buttons. */
export function ListCard({ title, query, actions, children }: CardProps) {
  return (
    <Card title={title} extra={<ListActions query={query}>{actions}</ListActions>}>
      {children}
    </Card>
  );
}

type RowDangerProps = {
  resource: string;
  icon: ReactNode;
  label: string;
  ariaLabel: string;
  onClick: () => void;
};

/** A row's destructive action (Delete, Revoke), shown to those who may delete; it asks first. */
export function RowDangerButton({ resource, icon, label, ariaLabel, onClick }: RowDangerProps) {
  return (
    <CanAccess resource={resource} action="delete">
      <Button danger type="text" icon={icon} aria-label={ariaLabel} onClick={onClick}>
        {label}
      </Button>
    </CanAccess>
  );
}
