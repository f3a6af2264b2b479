// Nothing behind login renders until the session check says so (Refine's Authenticated). A
// signed-out visitor is sent to the hosted login page by the auth provider's check; this gate only
// decides what shows meanwhile, and what shows when the sign-in service cannot be reached.
import { Authenticated, useIsAuthenticated } from "@refinedev/core";
import { Typography } from "antd";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { AUTH_UNAVAILABLE } from "../../providers/auth-provider";
import { useServices } from "../../providers/services";
import { FullScreenError } from "../feedback/full-screen-error";
import { LoadingScreen } from "../feedback/loading-screen";
import { FirstReads } from "./first-reads";

/** Waits between automatic rounds while the sign-in service fails (each round is the client's
 * request plus its 3 retries); the last value repeats. */
export const AUTH_RETRY_DELAYS_MS = [5_000, 10_000, 20_000, 40_000, 60_000];

export function AuthGate({ children }: { children: ReactNode }) {
  const { authProvider } = useServices();
  // The same session check Authenticated reads (one query), for its error and to retry it.
  const { data, isFetching, refetch } = useIsAuthenticated();

  // Another tab logging out, or a refresh finding the session gone, ends this tab's session too.
  useEffect(() => authProvider.watchSession(), [authProvider]);

  const unavailable =
    data?.error?.name === AUTH_UNAVAILABLE ? (
      <AuthUnavailable
        message={data.error.message}
        retrying={isFetching}
        onRetry={() => {
          authProvider.retrySession();
          refetch();
        }}
      />
    ) : null;
  // Authenticated shows `loading` whenever the session is checked again (a retry, the network
  // coming back), not only the first time: meanwhile the console keeps what it showed (the same
  // elements in the same place, so nothing remounts or loses its state).
  const meanwhile = data?.authenticated ? children : (unavailable ?? <LoadingScreen />);
  return (
    <>
      {/* The landing page's first reads start now, not after the shell and the page have rendered. */}
      <FirstReads authenticated={data?.authenticated === true} />
      <Authenticated
        key="console"
        loading={meanwhile}
        fallback={unavailable ?? <LoadingScreen text="Redirecting to sign in..." />}
      >
        {children}
      </Authenticated>
    </>
  );
}

/** The sign-in service failed: its error, a retry button, and automatic retries that back off. */
function AuthUnavailable({
  message,
  retrying,
  onRetry,
}: {
  message: string;
  retrying: boolean;
  onRetry: () => void;
}) {
  const [round, setRound] = useState(0);
  const [retryAt, setRetryAt] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const retry = useRef(onRetry);
  retry.current = onRetry;

  useEffect(() => {
    if (retrying) {
      setRetryAt(null);
      return;
    }
    const delay = AUTH_RETRY_DELAYS_MS[Math.min(round, AUTH_RETRY_DELAYS_MS.length - 1)] ?? 60_000;
    setRetryAt(Date.now() + delay);
    setNow(Date.now());
    const tick = setInterval(() => setNow(Date.now()), 1000);
    const timer = setTimeout(() => {
      setRound((r) => r + 1);
      retry.current();
    }, delay);
    return () => {
      clearInterval(tick);
      clearTimeout(timer);
    };
  }, [retrying, round]);

  const seconds = retryAt === null ? null : Math.max(1, Math.ceil((retryAt - now) / 1000));
  return (
    <FullScreenError
      title="Unable to reach the sign-in service"
      message={
        <>
          <div>{message}</div>
          <Typography.Text type="secondary" role="status" aria-live="polite">
            {retrying ? "Trying again..." : `Trying again automatically in ${seconds} s.`}
          </Typography.Text>
        </>
      }
      retrying={retrying}
      onRetry={() => {
        if (retrying) return;
        setRound((r) => r + 1);
        retry.current();
      }}
    />
  );
}
