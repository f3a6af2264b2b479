import { alert, type FieldErrors, html, input, page, SafeHtml } from "../hosted-pages/html";
import { withRt } from "../hosted-pages/kit";
import { socialButtons } from "../social/buttons";

export type FormState = {
  values?: Record<string, string | undefined>;
  errors?: FieldErrors;
  message?: string;
  rt?: string;
};

export function loginPage(s: FormState = {}): string {
  const v = s.values ?? {};
  return page(
    "Sign in",
    html`<div class="card"><h1>Sign in</h1><p class="sub">Welcome back. Sign in to your organization's console.</p>
${alert(s.message)}
<form method="post" action="${withRt("/login", s.rt)}" novalidate>
${input("email", "Email", { type: "email", value: v.email, autocomplete: "username", autofocus: !v.email, error: s.errors?.email })}
${input("password", "Password", { type: "password", autocomplete: "current-password", autofocus: !!v.email, error: s.errors?.password })}
<button type="submit">Sign in</button>
</form>
${socialButtons(s.rt)}
<p class="foot"><a href="${withRt("/forgot_password", s.rt)}">Forgot password?</a> · <a href="${withRt("/magic_link/request", s.rt)}">Email me a sign-in link</a></p>
<p class="foot">Don't have an account? <a href="${withRt("/signup", s.rt)}">Sign up</a></p></div>`,
  );
}

export function signupPage(s: FormState = {}): string {
  const v = s.values ?? {};
  return page(
    "Sign up",
    html`<div class="card"><h1>Create your account</h1><p class="sub">Sign up to run and review AI evaluations.</p>
${alert(s.message)}
<form method="post" action="${withRt("/signup", s.rt)}" novalidate>
${input("first_name", "First name", { value: v.first_name, autocomplete: "given-name", autofocus: true, error: s.errors?.first_name })}
${input("last_name", "Last name", { value: v.last_name, autocomplete: "family-name", error: s.errors?.last_name })}
${input("email", "Email", { type: "email", value: v.email, autocomplete: "email", error: s.errors?.email })}
${input("password", "Password", { type: "password", autocomplete: "new-password", error: s.errors?.password })}
<button type="submit">Sign up</button>
</form>
${socialButtons(s.rt)}
<p class="foot">Already have an account? <a href="${withRt("/login", s.rt)}">Sign in</a></p></div>`,
  );
}

/** After sign-up (or a sign-in before confirming): the link is in the inbox; resend on request. */
export function checkEmailPage(s: {
  email?: string;
  message?: string;
  notice?: string;
  rt?: string;
}): string {
  return page(
    "Confirm your email",
    html`<div class="card"><h1>Confirm your email</h1>
<p class="sub">We sent a confirmation link${s.email ? html` to <strong>${s.email}</strong>` : ""}. Open it to finish signing in.</p>
${alert(s.message)}${s.notice ? html`<p class="sub" role="status">${s.notice}</p>` : ""}
<form method="post" action="${withRt("/confirm_email/resend", s.rt)}"><button class="button secondary" type="submit">Send the link again</button></form>
<p class="foot"><a href="${withRt("/login", s.rt)}">Back to sign in</a></p></div>`,
  );
}

/** The second step of sign-in: an authenticator code, or a one-time backup code. */
export function mfaPage(s: FormState & { backup?: boolean }): string {
  const backup = s.backup === true;
  const action = withRt(backup ? "/login/mfa?backup=1" : "/login/mfa", s.rt);
  return page(
    "Two-factor authentication",
    html`<div class="card"><h1>Two-factor authentication</h1>
<p class="sub">${backup ? "Enter one of your backup codes. Each code works once." : "Enter the 6-digit code from your authenticator app."}</p>
${alert(s.message)}
<form method="post" action="${action}" novalidate>
${
  backup
    ? input("code", "Backup code", { autocomplete: "off", autofocus: true, error: s.errors?.code })
    : new SafeHtml(
        input("code", "Authentication code", {
          autocomplete: "one-time-code",
          autofocus: true,
          error: s.errors?.code,
        }).value.replace('type="text"', 'type="text" inputmode="numeric" maxlength="6"'),
      )
}
<button type="submit">Verify</button>
</form>
<p class="foot">${
      backup
        ? html`<a href="${withRt("/login/mfa", s.rt)}">Use your authenticator app instead</a>`
        : html`<a href="${withRt("/login/mfa?backup=1", s.rt)}">Use a backup code instead</a>`
    }</p>
<p class="foot"><a href="${withRt("/login", s.rt)}">Start over</a></p></div>`,
  );
}
