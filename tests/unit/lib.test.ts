import { describe, expect, it } from "vitest";
import { organizationLabel, roleLabel } from "../../src/lib/account-labels";
import { parseConsoleConfig } from "../../src/lib/console-config";
import { decodeReturnTarget, encodeReturnTarget, toLatin1Url } from "../../src/lib/return-target";
import { isToggleSidebarShortcut } from "../../src/lib/shortcuts";
import {
  parseSidebarCookie,
  readSidebarExpanded,
  serializeSidebarCookie,
  writeSidebarExpanded,
} from "../../src/lib/sidebar-cookie";
import { adminsText, needsWorkspaceBanner } from "../../src/lib/workspace-banner";

describe("sidebar cookie", () => {
  it("serializes the state with path=/ and a 7-day max-age", () => {
    expect(serializeSidebarCookie(true)).toBe("sidebar_state=true; path=/; max-age=604800");
    expect(serializeSidebarCookie(false)).toBe("sidebar_state=false; path=/; max-age=604800");
  });

  it("finds its value among other cookies and ignores similar names", () => {
    expect(parseSidebarCookie("a=1; sidebar_state=false; b=2")).toBe(false);
    expect(parseSidebarCookie("sidebar_state=true")).toBe(true);
    expect(parseSidebarCookie("my_sidebar_state=false")).toBeUndefined();
    expect(parseSidebarCookie("sidebar_state=maybe")).toBeUndefined();
    expect(parseSidebarCookie("")).toBeUndefined();
  });

  it("defaults to expanded and round-trips through document.cookie", () => {
    expect(readSidebarExpanded()).toBe(true);
    writeSidebarExpanded(false);
    expect(document.cookie).toContain("sidebar_state=false");
    expect(readSidebarExpanded()).toBe(false);
    writeSidebarExpanded(true);
    expect(readSidebarExpanded()).toBe(true);
  });
});

describe("return target (rt)", () => {
  it("is exactly btoa of an ASCII URL, so hosted pages can atob it", () => {
    const url = "http://localhost:3000/workspace/abc?tab=members#top";
    expect(encodeReturnTarget(url)).toBe(btoa(url));
    expect(decodeReturnTarget(encodeReturnTarget(url))).toBe(url);
  });

  it("percent-encodes characters btoa cannot take instead of throwing", () => {
    const url = "http://localhost:3000/search?q=日本";
    expect(() => btoa(url)).toThrow();
    expect(toLatin1Url(url)).toBe("http://localhost:3000/search?q=%E6%97%A5%E6%9C%AC");
    expect(decodeReturnTarget(encodeReturnTarget(url))).toBe(toLatin1Url(url));
  });
});

describe("account labels", () => {
  it("maps roles and organizations to the spec's words", () => {
    expect(roleLabel(true)).toBe("Admin");
    expect(roleLabel(false)).toBe("User");
    expect(organizationLabel({ name: "Acme AI" })).toBe("Acme AI");
    expect(organizationLabel(null)).toBe("Not assigned");
    expect(organizationLabel({ name: "  " })).toBe("Not assigned");
  });
});

describe("no-workspace banner rules", () => {
  it("shows for members without a workspace uuid only", () => {
    expect(needsWorkspaceBanner({ is_admin: false, workspace: null })).toBe(true);
    expect(needsWorkspaceBanner({ is_admin: false, workspace: { workspace_uuid: "" } })).toBe(true);
    expect(needsWorkspaceBanner({ is_admin: false })).toBe(true);
    expect(needsWorkspaceBanner({ is_admin: false, workspace: { workspace_uuid: "w1" } })).toBe(false);
    expect(needsWorkspaceBanner({ is_admin: true, workspace: null })).toBe(false);
  });

  it("names the admins comma-joined, or nothing when there are none", () => {
    expect(adminsText(["a@x", "b@y"])).toBe("Admins: a@x, b@y");
    expect(adminsText(["a@x", " "])).toBe("Admins: a@x");
    expect(adminsText([])).toBeNull();
    expect(adminsText(undefined)).toBeNull();
  });
});

describe("toggle shortcut", () => {
  const key = (over: Partial<KeyboardEvent>) =>
    ({ key: "b", ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...over }) as KeyboardEvent;

  it("accepts Ctrl+B and Cmd+B, in either case", () => {
    expect(isToggleSidebarShortcut(key({ ctrlKey: true }))).toBe(true);
    expect(isToggleSidebarShortcut(key({ metaKey: true }))).toBe(true);
    expect(isToggleSidebarShortcut(key({ ctrlKey: true, key: "B" }))).toBe(true);
  });

  it("rejects plain B, other keys and extra modifiers", () => {
    expect(isToggleSidebarShortcut(key({}))).toBe(false);
    expect(isToggleSidebarShortcut(key({ ctrlKey: true, key: "c" }))).toBe(false);
    expect(isToggleSidebarShortcut(key({ ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(isToggleSidebarShortcut(key({ ctrlKey: true, altKey: true }))).toBe(false);
  });
});

describe("console config", () => {
  it("accepts the documented shape and trims trailing slashes", () => {
    expect(
      parseConsoleConfig({
        apiUrl: "http://localhost:3000/",
        authUrl: "http://localhost:3001",
        productName: "X",
      }),
    ).toEqual({ apiUrl: "http://localhost:3000", authUrl: "http://localhost:3001", productName: "X" });
  });

  it("defaults the product name and rejects missing or relative URLs", () => {
    expect(parseConsoleConfig({ apiUrl: "http://a", authUrl: "https://b" }).productName).toBe("Eval Console");
    expect(() => parseConsoleConfig({ authUrl: "http://b" })).toThrow(/apiUrl/);
    expect(() => parseConsoleConfig({ apiUrl: "http://a", authUrl: "localhost:3001" })).toThrow(/authUrl/);
    expect(() => parseConsoleConfig(null)).toThrow();
  });
});
