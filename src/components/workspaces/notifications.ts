// Error toasts of the workspace screens (spec §8): the fixed sentence as the toast's heading and
// the server's own message (for example the duplicate-name text) on the line below.
// Refine's antd notifications show `description` as the heading and `message` as the body.
import type { HttpError, OpenNotificationParams } from "@refinedev/core";

export function failureToast(text: string) {
  return (failure?: unknown): OpenNotificationParams => {
    const error = failure as HttpError | undefined;
    const detail = error?.message && error.message !== text ? error.message : undefined;
    return detail
      ? { type: "error", key: "workspace-failure", description: text, message: detail }
      : { type: "error", key: "workspace-failure", message: text };
  };
}
