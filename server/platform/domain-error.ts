/**
 * A refusal by the product's rules, said without HTTP: the domain modules (metering, the workspace
 * repository, identity's operator roles) throw it; the API's error handler (errors.ts) answers it
 * with its kind's code and status, the command line prints its message.
 */
export type RefusalKind = "invalid" | "not_found" | "conflict";

export class DomainError extends Error {
  constructor(
    message: string,
    readonly kind: RefusalKind = "conflict",
  ) {
    super(message);
  }
}
