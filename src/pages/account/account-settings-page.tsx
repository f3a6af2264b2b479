// "/account/settings": read-only account facts from /v1/accounts/me (spec §2 Account Settings).
import { Card, Form, Input } from "antd";
import { PageTitle } from "../../components/page-title";
import { useCurrentUser } from "../../hooks/use-current-user";
import { organizationLabel, roleLabel } from "../../lib/account-labels";

export function AccountSettingsPage() {
  // The layout renders pages only after the current user loaded, so data is present here.
  const { data: user } = useCurrentUser();
  if (!user) return null;
  const fields = [
    { id: "account-email", label: "Email", value: user.email },
    { id: "account-organization", label: "Organization", value: organizationLabel(user.organization) },
    { id: "account-role", label: "Role", value: roleLabel(user.is_admin) },
  ];
  return (
    <>
      <PageTitle title="Account Settings" />
      <Card style={{ maxWidth: 640 }}>
        <Form layout="vertical" component="div">
          {fields.map((field) => (
            <Form.Item key={field.id} label={field.label} htmlFor={field.id}>
              {/* Read-only facts read as text, not as fields waiting for input. */}
              <Input
                id={field.id}
                value={field.value}
                readOnly
                variant="borderless"
                tabIndex={-1}
                style={{ paddingInline: 0, cursor: "default", fontSize: 15 }}
              />
            </Form.Item>
          ))}
        </Form>
      </Card>
    </>
  );
}
