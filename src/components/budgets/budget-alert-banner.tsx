// The console-wide budget alert banner for administrators: one line per budget past one of its
// thresholds this cycle (GET /v1/budgets/alerts), with a link to Billing & Usage. It reads the
// alerts again after every navigation and every minute, so a threshold crossed by ingestion shows
// up without a reload; it shows nothing until the first answer (no flash) and nothing on failure
// (the banner is a notice, the Billing page reports errors).
import { WarningOutlined } from "@ant-design/icons";
import { type HttpError, useCan, useLink, useList, useNavigation } from "@refinedev/core";
import { Alert, Flex } from "antd";
import { useEffect, useRef } from "react";
import { useLocation } from "react-router";
import type { BudgetAlert } from "../../../contract/budgets";
import { billing } from "../../resources/billing";
import { budgetAlerts as resource } from "../../resources/budgets";
import { alertSentence, bannerAlerts } from "./budget-text";

export const BUDGET_ALERTS_REFRESH_MS = 60_000;

function Banner() {
  const Link = useLink();
  const { listUrl } = useNavigation();
  const { pathname } = useLocation();
  const { result, query } = useList<BudgetAlert, HttpError>({
    resource: resource.name,
    pagination: { mode: "off" },
    errorNotification: false,
    queryOptions: { refetchInterval: BUDGET_ALERTS_REFRESH_MS, retry: false },
  });
  const { refetch } = query;

  // A page change is when an administrator expects the console to be current; the first render
  // has just asked.
  const shownPath = useRef(pathname);
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    void refetch();
  }, [pathname, refetch]);

  const alerts = bannerAlerts(result.data);
  if (alerts.length === 0) return null;
  const over = alerts.some((alert) => alert.threshold >= 100);
  return (
    <Alert
      banner
      type={over ? "error" : "warning"}
      icon={<WarningOutlined />}
      data-testid="budget-alert-banner"
      message={
        <Flex vertical gap={2}>
          {alerts.map((alert) => (
            <span key={alert.budget_uuid}>{alertSentence(alert)}</span>
          ))}
        </Flex>
      }
      action={<Link to={`${listUrl(billing.name)}#budgets`}>View Billing & Usage</Link>}
    />
  );
}

/** Rendered for everyone; asks for alerts only when the user may read them (administrators). */
export function BudgetAlertBanner() {
  const { data: allowed } = useCan({ resource: resource.name, action: "list" });
  return allowed?.can ? <Banner /> : null;
}
