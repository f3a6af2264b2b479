// The action buttons at the end of a Users table row (Remove and Revoke are one confirmed delete
// with the identity service's words on refusal), and the widths of the columns both Users tables
// share. Refine's buttons stay hidden until their own access answer is in, a moment after
// the rows show: the cell keeps a small button's height from the start, so the row does not grow
// when they appear, and fixed column widths keep the columns from moving as the content arrives.
import { DeleteButton } from "@refinedev/antd";
import { Flex, theme } from "antd";
import type { ReactNode } from "react";
import { identityMessage } from "./organization-user";

/** Column widths (px) of the Users tables (laid out as fixed); Email takes the rest. */
export const USERS_COLUMN_WIDTH = { name: 180, role: 140, time: 200, actions: 240 } as const;

/** The least room an email address gets before the table scrolls sideways instead. */
const EMAIL_MIN_WIDTH = 200;

/** A Users table's width below which it scrolls sideways, from its columns' widths. */
export function usersTableMinWidth(columns: (keyof typeof USERS_COLUMN_WIDTH)[]): number {
  return columns.reduce((sum, column) => sum + USERS_COLUMN_WIDTH[column], EMAIL_MIN_WIDTH);
}

export function RowActions({ children }: { children: ReactNode }) {
  const { token } = theme.useToken();
  // The height is on a wrapper: antd hides a Flex while it is empty.
  return (
    <div style={{ minHeight: token.controlHeightSM }}>
      <Flex gap={8} justify="flex-end" wrap>
        {children}
      </Flex>
    </div>
  );
}

type DeleteProps = {
  resource: string;
  id: string;
  meta: Record<string, unknown>;
  /** The button's word (its confirmation's OK too), e.g. "Remove". */
  verb: string;
  ariaLabel: string;
  confirmTitle: string;
  /** The success notification: its heading, then what it means. */
  done: { heading: string; message: string };
  /** The failure notification's heading. */
  failed: string;
};

/** A row's confirmed delete: Refine's DeleteButton, asking first, its outcome as a notification. */
export function RowDeleteButton({
  resource,
  id,
  meta,
  verb,
  ariaLabel,
  confirmTitle,
  done,
  failed,
}: DeleteProps) {
  return (
    <DeleteButton
      size="small"
      resource={resource}
      recordItemId={id}
      meta={meta}
      aria-label={ariaLabel}
      confirmTitle={confirmTitle}
      confirmOkText={verb}
      confirmCancelText="Cancel"
      // Refine's antd notifications show `description` as the heading, `message` below it.
      successNotification={{ type: "success", message: done.message, description: done.heading }}
      errorNotification={(error) => ({ type: "error", message: identityMessage(error), description: failed })}
    >
      {verb}
    </DeleteButton>
  );
}
