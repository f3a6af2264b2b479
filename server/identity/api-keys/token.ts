import { hash, randomBytes } from "node:crypto";

// An end-user API key is an id (32 lowercase hex, safe to show and search) plus a secret token
// shown once. The token carries a recognisable prefix so leaked keys are easy to spot in logs and
// by secret scanners; only its SHA-256 is stored, so a database leak does not leak usable keys.

const TOKEN_PREFIX = "eck_";
const TOKEN_PATTERN = /^eck_[A-Za-z0-9_-]{43}$/;
export const API_KEY_ID_PATTERN = /^[0-9a-f]{32}$/;

export function newApiKeyId(): string {
  return randomBytes(16).toString("hex");
}

/** 256 random bits: unguessable, so a plain hash (no salt, no slow KDF) is enough to look it up. */
export function newApiKeyToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

// One-shot crypto.hash: no Hash object per call (this runs on every x-api-key request).
export function hashApiKeyToken(token: string): string {
  return hash("sha256", token, "hex");
}

export function isWellFormedToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

export const EXPIRATION_OPTIONS = ["TwoWeeks", "OneMonth", "ThreeMonths", "SixMonths", "OneYear"] as const;
export type ExpirationOption = (typeof EXPIRATION_OPTIONS)[number];

const DAY = 24 * 60 * 60 * 1000;
const LIFETIME_MS: Record<ExpirationOption, number> = {
  TwoWeeks: 14 * DAY,
  OneMonth: 30 * DAY,
  ThreeMonths: 90 * DAY,
  SixMonths: 180 * DAY,
  OneYear: 365 * DAY,
};

export function expiryFor(option: ExpirationOption, now = new Date()): Date {
  return new Date(now.getTime() + LIFETIME_MS[option]);
}

export function isExpirationOption(v: unknown): v is ExpirationOption {
  return typeof v === "string" && (EXPIRATION_OPTIONS as readonly string[]).includes(v);
}
