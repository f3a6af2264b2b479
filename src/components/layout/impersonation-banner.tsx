// A support administrator acting as this user must never forget it: a red strip above the header.
import { theme } from "antd";

export function ImpersonationBanner({ email }: { email: string }) {
  const { token } = theme.useToken();
  return (
    <div
      role="status"
      style={{
        background: token.colorError,
        color: token.colorWhite,
        textAlign: "center",
        fontWeight: 600,
        padding: "4px 16px",
      }}
    >
      Impersonating {email}
    </div>
  );
}
