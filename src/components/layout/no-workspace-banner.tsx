// Members without a workspace cannot use most of the console; tell them whom to ask.
import { Alert } from "antd";
import { adminsText, needsWorkspaceBanner } from "../../lib/workspace-banner";
import type { CurrentUser } from "../../providers/current-user-types";

export function NoWorkspaceBanner({ user }: { user: CurrentUser }) {
  if (!needsWorkspaceBanner(user)) return null;
  const admins = adminsText(user.org_admin_emails);
  return (
    <Alert
      type="error"
      showIcon
      style={{ marginBottom: 16 }}
      message="No workspace assigned"
      description={
        <>
          <div>Please contact your administrator to add you to a workspace.</div>
          {admins ? <div>{admins}</div> : null}
        </>
      }
    />
  );
}
