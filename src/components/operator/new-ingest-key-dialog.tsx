// Shows a just-created ingestion key's token once, with a copy button and how an eval service
// uses it. The token lives only in the caller's state, which closing this dialog clears.
import { Alert, Typography } from "antd";
import type { NewIngestKey } from "../../lib/operator";
import { CopyField } from "../copy-field";
import { ShownOnceDialog } from "../shown-once-dialog";

export function NewIngestKeyDialog({
  created,
  onClose,
}: {
  created: NewIngestKey | null;
  onClose: () => void;
}) {
  return (
    <ShownOnceDialog secret={created} title="Your new ingestion key" onClose={onClose}>
      {(key) => (
        <>
          <Typography.Text>
            <Typography.Text strong>{key.name}</Typography.Text>
            {key.organization_uuid
              ? " sends usage for one organization."
              : " sends usage for every organization."}
          </Typography.Text>
          <CopyField
            id="new-ingest-key-token"
            label="Token"
            value={key.token}
            copiedText="Copied ingestion key"
            copyLabel="Copy ingestion key"
            notificationKey="ingest-key-copy"
          />
          <Alert
            type="warning"
            showIcon
            message="Shown only once"
            description={
              <>
                Give it to the eval service now: it sends usage to{" "}
                <Typography.Text code>POST /v1/usage/events</Typography.Text> with the{" "}
                <Typography.Text code>x-api-key</Typography.Text> header. Only its hash is kept.
              </>
            }
          />
        </>
      )}
    </ShownOnceDialog>
  );
}
