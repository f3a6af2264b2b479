import { describe, expect, it } from "vitest";
import {
  apiKeyErrorMessage,
  DEFAULT_EXPIRATION,
  EXPIRATION_OPTIONS,
  expiresLabel,
  formatEpochDate,
  isExpirationOption,
  pageCount,
  paginationText,
} from "../../src/lib/api-keys";

describe("API key rules", () => {
  it("offers the five expiration options with human labels, one year by default", () => {
    expect(EXPIRATION_OPTIONS.map((o) => o.value)).toEqual([
      "TwoWeeks",
      "OneMonth",
      "ThreeMonths",
      "SixMonths",
      "OneYear",
    ]);
    expect(EXPIRATION_OPTIONS.map((o) => o.label)).toEqual([
      "Two weeks",
      "One month",
      "Three months",
      "Six months",
      "One year",
    ]);
    expect(DEFAULT_EXPIRATION).toBe("OneYear");
    expect(isExpirationOption("SixMonths")).toBe(true);
    expect(isExpirationOption("Never")).toBe(false);
  });

  it("shows dates in UTC and Never for a key without expiry", () => {
    expect(formatEpochDate(Date.UTC(2027, 0, 5, 23, 59) / 1000)).toBe("Jan 5, 2027");
    expect(expiresLabel(null)).toBe("Never");
    expect(expiresLabel(undefined)).toBe("Never");
    expect(expiresLabel(Date.UTC(2026, 11, 31) / 1000)).toBe("Dec 31, 2026");
    expect(formatEpochDate(undefined)).toBe("-");
  });

  it("writes the pagination line from a zero-based page", () => {
    expect(paginationText(0, 0)).toBe("Showing page 1 of 1 (0 total)");
    expect(paginationText(0, 10)).toBe("Showing page 1 of 1 (10 total)");
    expect(paginationText(1, 11)).toBe("Showing page 2 of 2 (11 total)");
    expect(paginationText(2, 25)).toBe("Showing page 3 of 3 (25 total)");
    expect(pageCount(21)).toBe(3);
    expect(pageCount(undefined)).toBe(1);
  });

  it("prefers the service's own text, else the fallback for the error code", () => {
    expect(apiKeyErrorMessage("list", { code: "action_disabled" })).toBe("Personal API keys are disabled");
    expect(apiKeyErrorMessage("list", { code: "not_logged_in" })).toBe("Unauthorized");
    expect(apiKeyErrorMessage("list", { code: "invalid_request_fields" })).toBe("Bad request");
    expect(apiKeyErrorMessage("create", { code: "action_forbidden" })).toBe(
      "No permission to create a personal API key",
    );
    expect(apiKeyErrorMessage("create", { code: "bad_request" })).toBe("Bad request");
    expect(apiKeyErrorMessage("create", { code: "action_disabled" })).toBe("Personal API keys are disabled");
    expect(apiKeyErrorMessage("delete", { code: "not_found" })).toBe("API key not found");
    expect(apiKeyErrorMessage("delete", { code: "action_forbidden" })).toBe(
      "No permission to delete API key",
    );
    expect(apiKeyErrorMessage("delete", { code: "db_error" })).toBe("Unexpected error");
    expect(apiKeyErrorMessage("create", null)).toBe("Unexpected error");
    expect(
      apiKeyErrorMessage("create", { code: "bad_request", userFacingError: "Invalid expiration option." }),
    ).toBe("Invalid expiration option.");
  });
});
