import { describe, expect, it, vi } from "vitest";
import { debounce } from "../../src/lib/debounce";
import {
  canCreateWorkspace,
  canUpdateWorkspace,
  isCurrentWorkspace,
  memberCandidates,
  memberCountLabel,
  memberRoleLabel,
  normalizeWorkspaceName,
} from "../../src/lib/workspaces";

describe("workspace rules", () => {
  it("trims names; Create needs a non-blank name", () => {
    expect(normalizeWorkspaceName("  Red Team ")).toBe("Red Team");
    expect(normalizeWorkspaceName(undefined)).toBe("");
    expect(canCreateWorkspace("")).toBe(false);
    expect(canCreateWorkspace("   ")).toBe(false);
    expect(canCreateWorkspace(undefined)).toBe(false);
    expect(canCreateWorkspace(" a ")).toBe(true);
  });

  it("Update needs a non-blank name that differs from the current one after trimming", () => {
    expect(canUpdateWorkspace("Red Team", "Red Team")).toBe(false);
    expect(canUpdateWorkspace(" Red Team  ", "Red Team")).toBe(false);
    expect(canUpdateWorkspace("", "Red Team")).toBe(false);
    expect(canUpdateWorkspace("  ", "Red Team")).toBe(false);
    expect(canUpdateWorkspace("Blue Team", "Red Team")).toBe(true);
    expect(canUpdateWorkspace("red team", "Red Team")).toBe(true);
  });

  it("candidates are organization users not already members, once each, in email order", () => {
    const users = [
      { email: "zed@acme.test" },
      { email: "member@acme.test" },
      { email: "Admin@Acme.test" },
      { email: "amy@acme.test" },
      { email: "amy@acme.test" },
      { email: "" },
    ];
    const members = [{ email: "admin@acme.test", role: "admin" }, { email: "member@acme.test" }];
    expect(memberCandidates(users, members).map((u) => u.email)).toEqual(["amy@acme.test", "zed@acme.test"]);
    expect(memberCandidates(undefined, members)).toEqual([]);
    expect(memberCandidates(users.slice(0, 1), undefined).map((u) => u.email)).toEqual(["zed@acme.test"]);
  });

  it("labels roles (Member by default) and member counts", () => {
    expect(memberRoleLabel(undefined)).toBe("Member");
    expect(memberRoleLabel("")).toBe("Member");
    expect(memberRoleLabel("admin")).toBe("Admin");
    expect(memberRoleLabel("workspace_owner")).toBe("Workspace Owner");
    expect(memberCountLabel(1)).toBe("1 member");
    expect(memberCountLabel(0)).toBe("0 members");
    expect(memberCountLabel(12)).toBe("12 members");
    expect(memberCountLabel(undefined)).toBe("0 members");
  });

  it("marks the user's own workspace as current", () => {
    expect(isCurrentWorkspace({ workspace_uuid: "w1" }, { workspace_uuid: "w1" })).toBe(true);
    expect(isCurrentWorkspace({ workspace_uuid: "w1" }, { workspace_uuid: "w2" })).toBe(false);
    expect(isCurrentWorkspace({ workspace_uuid: "w1" }, null)).toBe(false);
    expect(isCurrentWorkspace({ workspace_uuid: "" }, { workspace_uuid: "" })).toBe(false);
  });
});

describe("debounce", () => {
  it("runs only the last call, 300 ms after it; cancel drops a pending call", () => {
    vi.useFakeTimers();
    try {
      const fn = vi.fn();
      const run = debounce(fn, 300);
      run("a");
      vi.advanceTimersByTime(200);
      run("ab");
      vi.advanceTimersByTime(299);
      expect(fn).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(fn).toHaveBeenCalledTimes(1);
      expect(fn).toHaveBeenCalledWith("ab");

      run("abc");
      run.cancel();
      vi.advanceTimersByTime(1000);
      expect(fn).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
