import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { E2E } from "../../playwright.config";

// The server under test sends its emails over SMTP to a local sink (scripts/e2e-server.sh) that
// keeps each message as a file; tests read links from there, like a mailbox.
const MAIL_DIR = join(process.env.TMPDIR ?? tmpdir(), `eval-console-e2e-mail-${new URL(E2E.console).port}`);

/** The link to `path` in the newest email to `to` that has one (decoded when quoted-printable). */
export function mailedLink(to: string, path: string): string | null {
  const files = readdirSync(MAIL_DIR).sort().reverse();
  for (const f of files) {
    const raw = readFileSync(join(MAIL_DIR, f), "utf8");
    if (!new RegExp(`^To: .*${to.replace(/[.+]/g, "\\$&")}`, "mi").test(raw)) continue;
    const qp = /^Content-Transfer-Encoding: quoted-printable/im.test(raw);
    const text = qp
      ? raw
          .replace(/=\r?\n/g, "")
          .replace(/=([0-9A-F]{2})/g, (_m, h) => String.fromCharCode(Number.parseInt(h, 16)))
      : raw;
    const m = text.match(new RegExp(`https?://\\S+${path}\\?\\S+`));
    if (m) return m[0];
  }
  return null;
}

/** A header's value: unfolded, and MIME encoded words ("=?UTF-8?Q?...?=") decoded. */
function headerValue(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n(?=[ \t])/g, "") ?? "";
  const line = new RegExp(`^${name}: (.*)$`, "mi").exec(head)?.[1] ?? "";
  return line
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, charset: string, kind: string, text: string) => {
      const bytes =
        kind.toUpperCase() === "B"
          ? Buffer.from(text, "base64")
          : Buffer.from(
              text
                .replace(/_/g, " ")
                .replace(/=([0-9A-F]{2})/gi, (_q, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
              "latin1",
            );
      return new TextDecoder(charset).decode(bytes);
    });
}

/** The subjects of the emails to `to`, oldest first. */
export function mailedSubjects(to: string): string[] {
  const subjects: string[] = [];
  for (const f of readdirSync(MAIL_DIR).sort()) {
    const raw = readFileSync(join(MAIL_DIR, f), "utf8");
    if (headerValue(raw, "To").toLowerCase().includes(to.toLowerCase()))
      subjects.push(headerValue(raw, "Subject"));
  }
  return subjects;
}
