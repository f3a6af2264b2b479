import { screen, waitFor } from "@testing-library/react";

/**
 * The open dialog titled `title`, waited for. antd gives every dialog title the same id under
 * test, so dialogs have no accessible name: they are found by their title's text.
 */
export const findDialog = (title: string) =>
  waitFor(() => {
    const found = screen
      .getAllByRole("dialog")
      .find((d) => d.querySelector(".ant-modal-title")?.textContent === title);
    if (!found) throw new Error(`No open dialog titled ${title}`);
    return found;
  });
