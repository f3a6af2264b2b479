// Rules of the Personal API Keys screen (spec §2, §3, §8, §9).
import { API_KEY_PAGE_SIZE } from "./page-sizes";

export const EXPIRATION_OPTIONS = [
  { value: "TwoWeeks", label: "Two weeks" },
  { value: "OneMonth", label: "One month" },
  { value: "ThreeMonths", label: "Three months" },
  { value: "SixMonths", label: "Six months" },
  { value: "OneYear", label: "One year" },
] as const;

export type ExpirationOption = (typeof EXPIRATION_OPTIONS)[number]["value"];

export const DEFAULT_EXPIRATION: ExpirationOption = "OneYear";
export { API_KEY_PAGE_SIZE };
export const API_KEY_SEARCH_DEBOUNCE_MS = 300;

export function isExpirationOption(value: unknown): value is ExpirationOption {
  return EXPIRATION_OPTIONS.some((option) => option.value === value);
}

export type PersonalApiKey = {
  api_key_id: string;
  created_at: number;
  expires_at_seconds: number | null;
  metadata?: unknown;
};

export type CreatedApiKey = { api_key_id: string; api_key_token: string };

const dateFormat = new Intl.DateTimeFormat("en-US", {
  timeZone: "UTC",
  month: "short",
  day: "numeric",
  year: "numeric",
});

/** Epoch seconds as a UTC date ("Jan 5, 2027"); "-" when missing. */
export function formatEpochDate(seconds: number | null | undefined): string {
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return "-";
  return dateFormat.format(new Date(seconds * 1000));
}

/** "Never" for a key without expiry. */
export function expiresLabel(expiresAtSeconds: number | null | undefined): string {
  if (expiresAtSeconds === null || expiresAtSeconds === undefined) return "Never";
  return formatEpochDate(expiresAtSeconds);
}

/** Number of pages; an empty list still has one page. */
export function pageCount(total: number | null | undefined, pageSize = API_KEY_PAGE_SIZE): number {
  const n = typeof total === "number" && total > 0 ? total : 0;
  return Math.max(1, Math.ceil(n / pageSize));
}

/** "Showing page X of Y (N total)" for a zero-based page index. */
export function paginationText(
  pageIndex: number,
  total: number | null | undefined,
  pageSize = API_KEY_PAGE_SIZE,
) {
  const n = typeof total === "number" && total > 0 ? total : 0;
  return `Showing page ${pageIndex + 1} of ${pageCount(n, pageSize)} (${n} total)`;
}

type ApiKeyOperation = "list" | "create" | "delete";

/** Fallback messages per identity error code, as the identity client's handlers name them. */
const FALLBACKS: Record<ApiKeyOperation, Record<string, string>> = {
  list: {
    action_disabled: "Personal API keys are disabled",
    not_logged_in: "Unauthorized",
    invalid_request_fields: "Bad request",
  },
  create: {
    action_disabled: "Personal API keys are disabled",
    not_logged_in: "Unauthorized",
    invalid_request_fields: "Bad request",
    bad_request: "Bad request",
    action_forbidden: "No permission to create a personal API key",
  },
  delete: {
    not_logged_in: "Unauthorized",
    not_found: "API key not found",
    action_forbidden: "No permission to delete API key",
  },
};

/** The identity service's user-facing text, else the fallback for its error code. */
export function apiKeyErrorMessage(
  operation: ApiKeyOperation,
  error: { code?: unknown; userFacingError?: unknown } | null | undefined,
): string {
  const text = typeof error?.userFacingError === "string" ? error.userFacingError.trim() : "";
  if (text) return text;
  const code = typeof error?.code === "string" ? error.code : "";
  return FALLBACKS[operation][code] ?? "Unexpected error";
}
