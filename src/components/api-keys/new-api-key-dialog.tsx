// Shows a just-created key once: its id and token with copy buttons and the "Sensitive" warning.
// The token lives only in the caller's state, which closing this dialog clears.
import { Alert } from "antd";
import type { CreatedApiKey } from "../../lib/api-keys";
import { CopyField } from "../copy-field";
import { ShownOnceDialog } from "../shown-once-dialog";

export function NewApiKeyDialog({
  created,
  onClose,
}: {
  created: CreatedApiKey | null;
  onClose: () => void;
}) {
  return (
    <ShownOnceDialog secret={created} title="Your new API key" onClose={onClose}>
      {(key) => (
        <>
          <CopyField
            id="new-api-key-id"
            label="Key ID"
            value={key.api_key_id}
            copiedText="Copied Key ID"
            notificationKey="api-key-copy"
          />
          <CopyField
            id="new-api-key-token"
            label="API Key"
            value={key.api_key_token}
            copiedText="Copied API Key"
            notificationKey="api-key-copy"
          />
          <Alert
            type="warning"
            showIcon
            message="Sensitive"
            description="This API key is shown only once. Anyone with it can access your account, so treat it like a password."
          />
        </>
      )}
    </ShownOnceDialog>
  );
}
