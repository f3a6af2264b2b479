// The identity service's error catalogue (spec §8), in PropelAuth's shape:
// {"error_code", "user_facing_error", "field_errors"?}. Routes throw IdentityError; the service's
// error handler renders it.

const IDENTITY_ERRORS = {
  action_forbidden: [403, "You are not allowed to do that."],
  bad_request: [400, "The request is not valid."],
  not_logged_in: [401, "You are not logged in."],
  email_not_confirmed: [403, "Please confirm your email address first."],
  unexpected_error: [500, "An unexpected error has occurred"],
  not_found: [404, "Not found."],
  org_not_found: [404, "Organization not found."],
  action_disabled: [403, "This action is disabled."],
  invalid_request_fields: [400, "Some fields are not valid."],
  action_already_complete: [409, "This has already been done."],
  org_max_users_limit_exceeded: [400, "This organization has reached its maximum number of users."],
  user_max_orgs_limit_exceeded: [400, "You have reached the maximum number of organizations."],
  personal_domain_error: [400, "Organizations cannot use a personal email domain."],
  account_disabled: [403, "This account has been disabled."],
  account_locked: [403, "This account is locked after too many failed sign-ins. Try again later."],
  user_not_found: [404, "User not found."],
  invalid_mfa_cookie: [401, "Your sign-in session expired. Please sign in again."],
  account_mfa_locked: [403, "Too many wrong codes. Multi-factor sign-in is locked for a while."],
  incorrect_mfa_code: [400, "The code is not correct."],
  incorrect_password: [401, "Incorrect email or password."],
  rate_limit_exceeded: [429, "Too many requests. Please wait and try again."],
  email_already_confirmed: [400, "Your email address is already confirmed."],
  confirmation_email_sent: [429, "A confirmation email was sent recently. Please check your inbox."],
  email_send_failure: [502, "We could not send the email. Please try again later."],
  domain_not_allowed: [403, "Your email domain is not allowed in this organization."],
} as const satisfies Record<string, readonly [number, string]>;

export type IdentityErrorCode = keyof typeof IDENTITY_ERRORS;

export class IdentityError extends Error {
  readonly status: number;
  constructor(
    readonly code: IdentityErrorCode,
    message?: string,
    readonly fieldErrors?: Record<string, string>,
    status?: number,
  ) {
    const [defaultStatus, defaultMessage] = IDENTITY_ERRORS[code];
    super(message ?? defaultMessage);
    this.status = status ?? defaultStatus;
  }

  toJSON() {
    return {
      error_code: this.code,
      user_facing_error: this.message,
      // The PropelAuth client reads per-field messages from either key; send both.
      ...(this.fieldErrors ? { field_errors: this.fieldErrors, user_facing_errors: this.fieldErrors } : {}),
    };
  }
}
