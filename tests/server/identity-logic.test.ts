import { describe, expect, it } from "vitest";
import {
  inheritedRoles,
  isAtLeastRole,
  parseStoredRoles,
  permissionsFor,
} from "../../contract/role-hierarchy";
import { decodeReturnTarget, encodeReturnTarget } from "../../server/identity/return-target";

describe("return targets (rt)", () => {
  const allowed = ["http://localhost:3000"];
  it("decodes what the PropelAuth client's btoa produced, on allowed origins only", () => {
    const url = "http://localhost:3000/after?x=1&y=é";
    const rt = btoa(url);
    expect(encodeReturnTarget(url)).toBe(rt);
    expect(decodeReturnTarget(rt, allowed)).toBe("http://localhost:3000/after?x=1&y=%C3%A9");
    expect(decodeReturnTarget(btoa("http://localhost:3000.evil.example/"), allowed)).toBeNull();
    expect(decodeReturnTarget(btoa("javascript:alert(1)"), allowed)).toBeNull();
    expect(decodeReturnTarget("%%%not base64", allowed)).toBeNull();
    expect(decodeReturnTarget(undefined, allowed)).toBeNull();
  });
  it("accepts '+' turned into a space by form decoding and base64url input", () => {
    const url = "http://localhost:3000/?q=>>>";
    const rt = btoa(url);
    expect(rt).toContain("+");
    expect(decodeReturnTarget(rt.replace(/\+/g, " "), allowed)).toBe(url.replace(">>>", "%3E%3E%3E"));
    expect(decodeReturnTarget(rt.replace(/\+/g, "-").replace(/\//g, "_"), allowed)).not.toBeNull();
  });
});

describe("roles in a single-role hierarchy", () => {
  it("inherits every role below, highest first", () => {
    expect(inheritedRoles("Owner")).toEqual(["Owner", "Admin", "Member"]);
    expect(inheritedRoles("Admin")).toEqual(["Admin", "Member"]);
    expect(inheritedRoles("Member")).toEqual(["Member"]);
  });
  it("answers at-least checks", () => {
    expect(isAtLeastRole("Owner", "Admin")).toBe(true);
    expect(isAtLeastRole("Admin", "Admin")).toBe(true);
    expect(isAtLeastRole("Member", "Admin")).toBe(false);
  });
  it("reads better-auth's comma-joined roles as primary plus additional", () => {
    expect(parseStoredRoles("admin")).toEqual({ role: "Admin", additional: [] });
    expect(parseStoredRoles("member,admin")).toEqual({ role: "Member", additional: ["Admin"] });
    expect(parseStoredRoles("unknown")).toEqual({ role: "Member", additional: [] });
  });
  it("flattens permissions so higher roles hold strictly more", () => {
    const member = permissionsFor(inheritedRoles("Member"));
    const admin = permissionsFor(inheritedRoles("Admin"));
    const owner = permissionsFor(inheritedRoles("Owner"));
    expect(member.every((x) => admin.includes(x))).toBe(true);
    expect(admin.every((x) => owner.includes(x))).toBe(true);
    expect(owner).toContain("propelauth::can_delete_org");
    expect(admin).not.toContain("propelauth::can_delete_org");
    expect([...admin].sort()).toEqual(admin);
  });
});
