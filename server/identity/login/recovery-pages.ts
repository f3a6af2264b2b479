import { alert, html, input, page } from "../hosted-pages/html";
import { withRt } from "../hosted-pages/kit";
import type { FormState } from "./pages";

// Pages reached from the sign-in page or from emails: forgot password, reset password, and
// asking for a sign-in link.

function emailForm(title: string, sub: string, path: string, button: string, s: FormState) {
  return page(
    title,
    html`<div class="card"><h1>${title}</h1><p class="sub">${sub}</p>
${alert(s.message)}
<form method="post" action="${withRt(path, s.rt)}" novalidate>
${input("email", "Email", { type: "email", value: s.values?.email, autocomplete: "email", autofocus: true, error: s.errors?.email })}
<button type="submit">${button}</button>
</form>
<p class="foot"><a href="${withRt("/login", s.rt)}">Back to sign in</a></p></div>`,
  );
}

export const forgotPasswordPage = (s: FormState = {}) =>
  emailForm(
    "Reset your password",
    "We'll email you a link to choose a new password.",
    "/forgot_password",
    "Send reset link",
    s,
  );

export const magicLinkRequestPage = (s: FormState = {}) =>
  emailForm(
    "Email me a sign-in link",
    "We'll email you a link that signs you in once.",
    "/magic_link/request",
    "Send sign-in link",
    s,
  );

export function resetPasswordPage(s: FormState & { token: string }): string {
  return page(
    "Choose a new password",
    html`<div class="card"><h1>Choose a new password</h1><p class="sub">You will be signed out everywhere else.</p>
${alert(s.message)}
<form method="post" action="${withRt("/reset_password", s.rt)}" novalidate>
<input type="hidden" name="token" value="${s.token}">
${input("password", "New password", { type: "password", autocomplete: "new-password", autofocus: true, error: s.errors?.password })}
<button type="submit">Set password</button>
</form></div>`,
  );
}
