import { createRequire } from "node:module";

// Email domains for autojoin, restrict-to-domain and SSO. A personal mailbox provider's domain
// can't stand for an organization: anyone can get an address there. The list is the maintained
// `email-providers` package (about 8,800 free-mail domains) plus a few we name ourselves.

const FREE_MAIL: string[] = createRequire(import.meta.url)("email-providers/all.json");

const PERSONAL_DOMAINS = new Set([
  ...FREE_MAIL.map((d) => d.toLowerCase()),
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "hotmail.com",
  "hotmail.co.uk",
  "live.com",
  "msn.com",
  "yahoo.com",
  "yahoo.co.uk",
  "ymail.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "aol.com",
  "proton.me",
  "protonmail.com",
  "pm.me",
  "gmx.com",
  "gmx.de",
  "gmx.net",
  "web.de",
  "mail.com",
  "mail.ru",
  "yandex.com",
  "yandex.ru",
  "zoho.com",
  "fastmail.com",
  "hey.com",
  "qq.com",
  "163.com",
  "126.com",
  "tutanota.com",
  "tuta.io",
  "duck.com",
  "skiff.com",
  "hushmail.com",
]);

export function emailDomain(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0
    ? ""
    : email
        .slice(at + 1)
        .trim()
        .toLowerCase();
}

export function isPersonalDomain(domain: string): boolean {
  return PERSONAL_DOMAINS.has(domain.trim().toLowerCase().replace(/\.$/, ""));
}
