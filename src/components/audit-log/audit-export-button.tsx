// Export CSV: the whole filtered log as the API streams it (Accept: text/csv), saved as
// audit_log_{date}.csv.
import { DownloadOutlined } from "@ant-design/icons";
import { App, Button } from "antd";
import { useState } from "react";
import type { AuditFilterValues } from "../../lib/audit-log";
import { auditQuery } from "../../lib/audit-log";
import { saveDownload } from "../../lib/save-download";
import { useServices } from "../../providers/services";

export function AuditExportButton({ filters }: { filters: AuditFilterValues }) {
  const { apiFetch } = useServices();
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const blob = await apiFetch<Blob>("/v1/audit-log", {
        query: { ...auditQuery(filters), format: "csv" },
        headers: { Accept: "text/csv" },
        read: (response) => response.blob(),
      });
      saveDownload(blob, `audit_log_${new Date().toISOString().slice(0, 10)}.csv`);
    } catch (err) {
      message.error(`The export failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button icon={<DownloadOutlined />} loading={busy} onClick={() => void run()}>
      Export CSV
    </Button>
  );
}
