import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import nodemailer from "nodemailer";
import { emailOutbox } from "../../db/schema";
import type { Db } from "../../platform/database";
import { redactText } from "../../platform/logger";
import { IdentityError } from "../errors";

export type EmailKind =
  | "confirm_email"
  | "reset_password"
  | "magic_link"
  | "invitation"
  | "sso_link"
  | "signup_attempt"
  | "email_change_attempt"
  | "account_unlock";
export type Email = { to: string; kind: EmailKind; subject: string; text: string; html?: string };

/**
 * Every email is first written to the outbox table (so it can be read back by operators and
 * tests), then delivered over SMTP when SMTP_URL is set (the kept copy then loses its link
 * tokens), or logged (tokens redacted) when it is not.
 */
export function createMailer(
  db: Db,
  opts: { smtpUrl: string | undefined; from: string },
  logger: FastifyBaseLogger,
) {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null;
  return {
    async send(email: Email): Promise<{ id: string }> {
      const id = randomUUID();
      await db.insert(emailOutbox).values({ id, ...email, html: email.html ?? null });
      if (!transport) {
        logger.info(
          { email: { id, to: email.to, kind: email.kind, subject: email.subject, text: email.text } },
          "email kept in outbox (no SMTP_URL)",
        );
        return { id };
      }
      try {
        await transport.sendMail({
          from: opts.from,
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
        });
        // Delivered: the copy kept in the table loses its link tokens, so reading the table gives
        // nobody a working reset, sign-in or invitation link.
        await db
          .update(emailOutbox)
          .set({
            deliveredAt: new Date(),
            text: redactText(email.text),
            html: email.html === undefined ? null : redactText(email.html),
          })
          .where(eq(emailOutbox.id, id));
        return { id };
      } catch (err) {
        const message = (err as Error).message;
        await db.update(emailOutbox).set({ error: message }).where(eq(emailOutbox.id, id));
        logger.error({ err, emailId: id }, "email delivery failed");
        throw new IdentityError("email_send_failure");
      }
    },
    close() {
      transport?.close();
    },
  };
}

export type Mailer = ReturnType<typeof createMailer>;
