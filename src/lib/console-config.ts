// The console learns where the API and identity service live at run time (the configuration the
// server writes into the page, or GET /config.json), so one build runs at any address. This
// validates that document.
import type { ConsoleConfig } from "../../contract/console-config";

export type { ConsoleConfig };

export const DEFAULT_PRODUCT_NAME = "Eval Console";

/** A field of config.json that cannot be used; `field` says which. */
export class ConfigFieldError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = "ConfigFieldError";
    this.field = field;
  }
}

function absoluteUrl(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigFieldError(field, `config.json: "${field}" is missing`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigFieldError(field, `config.json: "${field}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigFieldError(field, `config.json: "${field}" must be an http(s) URL`);
  }
  // Paths are joined as `${apiUrl}/v1/...`; a trailing slash would double it.
  return value.replace(/\/+$/, "");
}

export function parseConsoleConfig(raw: unknown): ConsoleConfig {
  if (typeof raw !== "object" || raw === null) throw new Error("config.json is not a JSON object");
  const record = raw as Record<string, unknown>;
  const productName =
    typeof record.productName === "string" && record.productName.trim() !== ""
      ? record.productName
      : DEFAULT_PRODUCT_NAME;
  return {
    apiUrl: absoluteUrl(record.apiUrl, "apiUrl"),
    authUrl: absoluteUrl(record.authUrl, "authUrl"),
    productName,
  };
}
