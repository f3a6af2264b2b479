// Nothing behind login renders until the session check says so. A signed-out visitor is sent to
// the hosted login page by the auth provider's check; this gate only decides what shows meanwhile.
import { useIsAuthenticated } from "@refinedev/core";
import { type ReactNode, useEffect } from "react";
import { AUTH_UNAVAILABLE } from "../../providers/auth-provider";
import { useServices } from "../../providers/services";
import { FullScreenError } from "../feedback/full-screen-error";
import { LoadingScreen } from "../feedback/loading-screen";

export function AuthGate({ children }: { children: ReactNode }) {
  const { authProvider } = useServices();
  const { data, isLoading, refetch } = useIsAuthenticated();

  // Another tab logging out, or a refresh finding the session gone, ends this tab's session too.
  useEffect(() => authProvider.watchSession(), [authProvider]);

  if (isLoading || !data) return <LoadingScreen />;
  if (data.authenticated) return <>{children}</>;
  if (data.error?.name === AUTH_UNAVAILABLE) {
    return (
      <FullScreenError
        title="Unable to reach the sign-in service"
        message={data.error.message}
        onRetry={() => refetch()}
      />
    );
  }
  return <LoadingScreen text="Redirecting to sign in..." />;
}
