// Shows a signing secret once, just after an endpoint was added or its secret rotated, with a
// copy button. The secret lives only in the caller's state, which closing this dialog clears.
import { Alert, Typography } from "antd";
import { CopyField } from "../../components/copy-field";
import { ShownOnceDialog } from "../../components/shown-once-dialog";

type Props = { secret: string | null; rotated?: boolean; onClose: () => void };

export function WebhookSecretDialog({ secret, rotated = false, onClose }: Props) {
  return (
    <ShownOnceDialog
      secret={secret}
      title={rotated ? "New signing secret" : "Your endpoint's signing secret"}
      onClose={onClose}
    >
      {(value) => (
        <>
          <CopyField
            id="webhook-signing-secret"
            label="Signing secret"
            value={value}
            copiedText="Copied signing secret"
            copyLabel="Copy signing secret"
            notificationKey="webhook-secret-copy"
          />
          <Alert
            type="warning"
            showIcon
            message="Shown only once"
            description={
              <>
                Store it where your receiver can read it: it verifies the{" "}
                <Typography.Text code>eval-console-signature</Typography.Text> header of every delivery.{" "}
                {rotated ? "Deliveries from now on are signed with this secret only." : ""}
              </>
            }
          />
        </>
      )}
    </ShownOnceDialog>
  );
}
