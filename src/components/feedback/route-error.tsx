// Route error boundary: a page that throws while rendering or loading shows this in place of the
// page, keeping the sider and header usable.
import { Button, Result } from "antd";
import { isRouteErrorResponse, useNavigate, useRouteError } from "react-router";

function errorText(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error && error.message) return error.message;
  return "An unexpected error occurred.";
}

export function RouteError() {
  const error = useRouteError();
  const navigate = useNavigate();
  return (
    <Result
      status="error"
      title="Something went wrong"
      subTitle={errorText(error)}
      extra={[
        <Button key="reload" type="primary" onClick={() => window.location.reload()}>
          Reload page
        </Button>,
        <Button key="back" onClick={() => navigate(-1)}>
          Go back
        </Button>,
      ]}
    />
  );
}
