// "/" Billing & Usage (administrators only; the route redirects members).
import { NotBuiltYet } from "../../components/not-built-yet";
import { PageTitle } from "../../components/page-title";

export function BillingPage() {
  return (
    <>
      <PageTitle title="Billing & Usage" />
      <NotBuiltYet description="Billing and usage views arrive with the billing work." />
    </>
  );
}
