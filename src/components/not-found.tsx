// The console's 404 page: the same texts as Refine's, with an illustration drawn in the dark
// theme's colours (antd's 404 picture is a light disc that glares on the black page).
import { Button, Result, Typography, theme } from "antd";
import { useNavigate } from "react-router";

function LostIllustration() {
  const { token } = theme.useToken();
  return (
    <svg
      width="200"
      height="140"
      viewBox="0 0 200 140"
      aria-hidden="true"
      data-testid="not-found-illustration"
    >
      <circle cx="100" cy="70" r="62" fill={token.colorFillQuaternary} stroke={token.colorBorderSecondary} />
      <rect
        x="62"
        y="38"
        width="64"
        height="80"
        rx="6"
        fill={token.colorBgContainer}
        stroke={token.colorBorder}
      />
      <path
        d="M72 56h44M72 70h36M72 84h28"
        stroke={token.colorTextQuaternary}
        strokeWidth="4"
        strokeLinecap="round"
      />
      <circle cx="124" cy="86" r="20" fill="none" stroke={token.colorPrimary} strokeWidth="6" />
      <path d="M138 100l16 16" stroke={token.colorPrimary} strokeWidth="8" strokeLinecap="round" />
      <text x="124" y="93" textAnchor="middle" fontSize="20" fontWeight="700" fill={token.colorPrimary}>
        ?
      </text>
    </svg>
  );
}

export function NotFoundPage() {
  const navigate = useNavigate();
  return (
    <Result
      icon={<LostIllustration />}
      title="404"
      extra={
        <>
          <Typography.Paragraph>Sorry, the page you visited does not exist.</Typography.Paragraph>
          <Button type="primary" onClick={() => navigate("/")}>
            Back Home
          </Button>
        </>
      }
    />
  );
}
