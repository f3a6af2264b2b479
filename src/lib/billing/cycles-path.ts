/** The organization's billing cycles: Billing & Usage's first read (its usage calls name one of
 * them). */
export const BILLING_CYCLES_PATH = "/v1/accounts/organization/billingcycles";
