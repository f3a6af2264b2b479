import { describe, expect, it } from "vitest";
import { backends } from "./harness";
import { productWithWorkspaces, type Who } from "./workspaces-fixture";

const DEMO = ["Accuracy Benchmarks", "Red Team", "Safety Research"];
const UUID = /^[0-9a-f-]{36}$/;

describe.each(backends())("workspaces API on $name", (backend) => {
  const t = productWithWorkspaces(backend);

  const names = (res: { json(): unknown }) => (res.json() as { name: string }[]).map((w) => w.name);

  /** The call is refused with the status and code, and nothing in the database changed. */
  async function refused(
    status: number,
    code: string,
    run: () => Promise<{ statusCode: number; json(): unknown }>,
  ) {
    const before = await t.f.snapshot();
    const res = await run();
    expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
    expect((res.json() as { error: { code: string } }).error.code).toBe(code);
    expect(await t.f.snapshot()).toBe(before);
  }

  it("lists the organization's live workspaces in name order to members, admins and API keys", async () => {
    for (const who of ["admin", "member", "newcomer", "adminKey", "memberKey"] as Who[]) {
      for (const url of ["/v1/workspaces/", "/v1/workspaces", "/v1/workspaces/?show_deleted=false"]) {
        const res = await t.f.call(who, "GET", url);
        expect(res.statusCode, `${who} ${url}`).toBe(200);
        expect(names(res)).toEqual(DEMO);
      }
    }
    const [first] = (await t.f.call("member", "GET", "/v1/workspaces/")).json();
    expect(first).toEqual({
      workspace_uuid: expect.stringMatching(UUID),
      name: "Accuracy Benchmarks",
      organization_uuid: t.f.acmeId,
      organization_name: "Acme AI",
      member_count: 1,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      deleted_at: null,
    });
    expect((await t.f.call("other", "GET", "/v1/workspaces/")).json()).toEqual([]);
    expect((await t.f.call("none", "GET", "/v1/workspaces/")).statusCode).toBe(401);
  });

  it("lets administrators create workspaces; members, other tenants and anonymous callers change nothing", async () => {
    const body = { name: "  Vision Evals  ", organization_uuid: t.f.acmeId };
    await refused(403, "forbidden", () => t.f.call("member", "POST", "/v1/workspaces/", body));
    await refused(403, "forbidden", () => t.f.call("memberKey", "POST", "/v1/workspaces/", body));
    await refused(403, "forbidden", () => t.f.call("other", "POST", "/v1/workspaces/", body));
    await refused(401, "unauthorized", () => t.f.call("none", "POST", "/v1/workspaces/", body));

    const res = await t.f.call("admin", "POST", "/v1/workspaces/", body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      name: "Vision Evals",
      organization_uuid: t.f.acmeId,
      organization_name: "Acme AI",
      member_count: 0,
      deleted_at: null,
    });
    const byKey = await t.f.call("adminKey", "POST", "/v1/workspaces", {
      name: "Key Made",
      organization_uuid: t.f.acmeId,
    });
    expect(byKey.statusCode).toBe(201);

    for (const name of ["vision evals", "VISION EVALS ", "Safety Research"]) {
      await refused(409, "conflict", () =>
        t.f.call("admin", "POST", "/v1/workspaces/", { name, organization_uuid: t.f.acmeId }),
      );
    }
    const dup = await t.f.call("admin", "POST", "/v1/workspaces/", {
      name: "Red Team",
      organization_uuid: t.f.acmeId,
    });
    expect(dup.json().error.message).toBe("A workspace named Red Team already exists.");

    // Concurrent creates of one name: exactly one wins.
    const race = await Promise.all(
      [1, 2, 3, 4].map(() =>
        t.f.call("admin", "POST", "/v1/workspaces/", { name: "Race", organization_uuid: t.f.acmeId }),
      ),
    );
    expect(race.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);

    // Another tenant may use the same name in its own organization, and sees only its own.
    const globex = await t.f.call("other", "POST", "/v1/workspaces/", {
      name: "Red Team",
      organization_uuid: t.f.globexId,
    });
    expect(globex.statusCode).toBe(201);
    expect(names(await t.f.call("other", "GET", "/v1/workspaces/"))).toEqual(["Red Team"]);
    expect(names(await t.f.call("member", "GET", "/v1/workspaces/"))).toEqual(
      [...DEMO, "Key Made", "Race", "Vision Evals"].sort(),
    );
  });

  it("reads, renames and deletes one workspace with the same rules; other tenants get 404", async () => {
    const id = (
      await t.f.call("admin", "POST", "/v1/workspaces/", { name: "Scratch", organization_uuid: t.f.acmeId })
    ).json().workspace_uuid as string;
    const url = `/v1/workspaces/${id}`;
    for (const who of ["admin", "adminKey"] as Who[])
      expect((await t.f.call(who, "GET", url)).json().name, who).toBe("Scratch");
    // Members open only the workspaces they belong to.
    await refused(404, "not_found", () => t.f.call("member", "GET", url));
    await refused(404, "not_found", () => t.f.call("memberKey", "GET", url));
    expect((await t.f.call("admin", "POST", `${url}/members?user_email=member@acme.test`)).statusCode).toBe(
      201,
    );
    for (const who of ["member", "memberKey"] as Who[])
      expect((await t.f.call(who, "GET", url)).json().name, who).toBe("Scratch");
    await refused(404, "not_found", () => t.f.call("other", "GET", url));
    await refused(401, "unauthorized", () => t.f.call("none", "GET", url));

    const rename = { name: "Scratch Pad", organization_uuid: t.f.acmeId };
    await refused(403, "forbidden", () => t.f.call("member", "PUT", url, rename));
    await refused(403, "forbidden", () => t.f.call("memberKey", "PUT", url, rename));
    await refused(404, "not_found", () =>
      t.f.call("other", "PUT", url, { ...rename, organization_uuid: t.f.globexId }),
    );
    await refused(403, "forbidden", () => t.f.call("other", "PUT", url, rename));
    await refused(401, "unauthorized", () => t.f.call("none", "PUT", url, rename));
    await refused(409, "conflict", () => t.f.call("admin", "PUT", url, { ...rename, name: "red team" }));
    const renamed = await t.f.call("admin", "PUT", url, rename);
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ workspace_uuid: id, name: "Scratch Pad" });
    // Re-casing its own name is not a clash.
    expect((await t.f.call("adminKey", "PUT", url, { ...rename, name: "scratch pad" })).json().name).toBe(
      "scratch pad",
    );

    await refused(403, "forbidden", () => t.f.call("member", "DELETE", url));
    await refused(404, "not_found", () => t.f.call("other", "DELETE", url));
    await refused(401, "unauthorized", () => t.f.call("none", "DELETE", url));
    const del = await t.f.call("admin", "DELETE", url);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    for (const [method, u, payload] of [
      ["GET", url],
      ["PUT", url, rename],
      ["DELETE", url],
      ["GET", `${url}/members`],
      ["POST", `${url}/members?user_email=member@acme.test`],
      ["DELETE", `${url}/members/member@acme.test`],
    ] as const)
      await refused(404, "not_found", () => t.f.call("admin", method, u, payload));
  });

  it("hides a deleted workspace at once: members lose it, lists drop it, show_deleted keeps it", async () => {
    const safety = await t.f.idOf("Safety Research");
    const mine = await t.f.call("memberKey", "GET", "/v1/workspaces/my-workspace");
    expect(mine.json()).toMatchObject({ workspace_uuid: safety, name: "Safety Research", member_count: 2 });

    expect((await t.f.call("adminKey", "DELETE", `/v1/workspaces/${safety}`)).statusCode).toBe(204);
    for (const who of ["member", "memberKey"] as Who[]) {
      const gone = await t.f.call(who, "GET", "/v1/workspaces/my-workspace");
      expect(gone.statusCode).toBe(404);
      expect(gone.json().error.code).toBe("not_found");
      expect(names(await t.f.call(who, "GET", "/v1/workspaces/"))).not.toContain("Safety Research");
      expect((await t.f.call(who, "GET", `/v1/workspaces/${safety}`)).statusCode).toBe(404);
    }
    const me = await t.f.call("member", "GET", "/v1/accounts/me");
    expect(me.json().workspace).toBeNull();
    // Deleted workspaces are hidden from everyone but administrators (billing history): a
    // member's show_deleted is ignored.
    for (const who of ["member", "memberKey"] as Who[]) {
      const listed = (await t.f.call(who, "GET", "/v1/workspaces/?show_deleted=true")).json() as {
        name: string;
        deleted_at: string | null;
      }[];
      expect(listed.map((w) => w.name)).not.toContain("Safety Research");
      expect(listed.filter((w) => w.deleted_at !== null)).toEqual([]);
    }
    const all = (await t.f.call("admin", "GET", "/v1/workspaces/?show_deleted=true")).json() as {
      name: string;
      deleted_at: string | null;
    }[];
    expect(all.find((w) => w.name === "Safety Research")?.deleted_at).toMatch(/Z$/);
    expect(all.filter((w) => w.deleted_at === null).map((w) => w.name)).not.toContain("Safety Research");
    // The name is free again for a new workspace.
    const again = await t.f.call("admin", "POST", "/v1/workspaces/", {
      name: "Safety Research",
      organization_uuid: t.f.acmeId,
    });
    expect(again.statusCode).toBe(201);
    expect(again.json().workspace_uuid).not.toBe(safety);
  });

  it("manages members: administrators add and remove; administrators and the workspace's members read", async () => {
    const red = await t.f.idOf("Red Team");
    const members = `/v1/workspaces/${red}/members`;
    for (const who of ["admin", "adminKey"] as Who[])
      expect((await t.f.call(who, "GET", members)).json(), who).toEqual([
        { email: "admin@acme.test", user_id: expect.any(String), role: "Member" },
      ]);
    // The member is not in Red Team: its details and members are not theirs to read.
    await refused(404, "not_found", () => t.f.call("member", "GET", members));
    await refused(404, "not_found", () => t.f.call("memberKey", "GET", members));
    await refused(404, "not_found", () => t.f.call("member", "GET", `/v1/workspaces/${red}`));
    await refused(404, "not_found", () => t.f.call("other", "GET", members));
    await refused(401, "unauthorized", () => t.f.call("none", "GET", members));

    const add = `${members}?user_email=member@acme.test`;
    await refused(403, "forbidden", () => t.f.call("member", "POST", add));
    await refused(403, "forbidden", () =>
      t.f.call("memberKey", "POST", members, { user_email: "member@acme.test" }),
    );
    await refused(404, "not_found", () => t.f.call("other", "POST", add));
    await refused(401, "unauthorized", () => t.f.call("none", "POST", add));
    await refused(404, "user_not_in_organization", () =>
      t.f.call("admin", "POST", `${members}?user_email=other@globex.test`),
    );
    await refused(404, "user_not_in_organization", () =>
      t.f.call("admin", "POST", `${members}?user_email=nobody@acme.test`),
    );

    const added = await t.f.call("admin", "POST", add);
    expect(added.statusCode).toBe(201);
    expect(added.json()).toEqual({ email: "member@acme.test", user_id: expect.any(String), role: "Member" });
    const byBody = await t.f.call("adminKey", "POST", members, { user_email: "Newcomer@Acme.test" });
    expect(byBody.statusCode).toBe(201);
    expect(byBody.json().email).toBe("newcomer@acme.test");
    await refused(409, "conflict", () => t.f.call("admin", "POST", add));

    expect((await t.f.call("member", "GET", members)).json().map((m: { email: string }) => m.email)).toEqual([
      "admin@acme.test",
      "member@acme.test",
      "newcomer@acme.test",
    ]);
    // A user may be in several workspaces.
    const acc = await t.f.idOf("Accuracy Benchmarks");
    expect(
      (await t.f.call("admin", "POST", `/v1/workspaces/${acc}/members?user_email=newcomer@acme.test`))
        .statusCode,
    ).toBe(201);
    expect((await t.f.call("admin", "GET", `/v1/workspaces/${red}`)).json().member_count).toBe(3);

    const remove = `${members}/newcomer@acme.test`;
    await refused(403, "forbidden", () => t.f.call("member", "DELETE", remove));
    await refused(404, "not_found", () => t.f.call("other", "DELETE", remove));
    await refused(401, "unauthorized", () => t.f.call("none", "DELETE", remove));
    expect((await t.f.call("admin", "DELETE", `${members}/NEWCOMER@acme.test`)).statusCode).toBe(204);
    await refused(404, "member_not_found", () => t.f.call("admin", "DELETE", remove));
    expect((await t.f.call("member", "GET", members)).json()).toHaveLength(2);
  });

  it("lets a user choose their current workspace among their own live ones", async () => {
    const red = await t.f.idOf("Red Team");
    const acc = await t.f.idOf("Accuracy Benchmarks");
    // newcomer is in Accuracy Benchmarks only (Red Team membership was removed above).
    await refused(404, "not_found", () =>
      t.f.call("newcomer", "PUT", "/v1/workspaces/my-workspace", { workspace_uuid: red }),
    );
    await refused(401, "unauthorized", () =>
      t.f.call("none", "PUT", "/v1/workspaces/my-workspace", { workspace_uuid: acc }),
    );
    // The admin's first live workspace is Red Team (Safety Research was deleted above).
    expect((await t.f.call("admin", "GET", "/v1/workspaces/my-workspace")).json().name).toBe("Red Team");
    const chosen = await t.f.call("admin", "PUT", "/v1/workspaces/my-workspace", { workspace_uuid: acc });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json()).toMatchObject({
      workspace_uuid: acc,
      name: "Accuracy Benchmarks",
      organization_name: "Acme AI",
    });
    expect((await t.f.call("adminKey", "GET", "/v1/workspaces/my-workspace")).json().workspace_uuid).toBe(
      acc,
    );
    expect((await t.f.call("admin", "GET", "/v1/accounts/me")).json().workspace).toEqual({
      workspace_uuid: acc,
      name: "Accuracy Benchmarks",
    });
    // Deleting the chosen workspace falls back to the first live one.
    expect((await t.f.call("admin", "DELETE", `/v1/workspaces/${acc}`)).statusCode).toBe(204);
    expect((await t.f.call("admin", "GET", "/v1/workspaces/my-workspace")).json().name).toBe("Red Team");
    await refused(404, "not_found", () =>
      t.f.call("other", "PUT", "/v1/workspaces/my-workspace", { workspace_uuid: red }),
    );
  });

  it("lists organization users to bearer callers of that organization only", async () => {
    const url = "/v1/accounts/organization/users";
    const acme = (await t.f.call("member", "GET", url)).json();
    expect(acme.map((u: { email: string }) => u.email)).toEqual([
      "admin@acme.test",
      "member@acme.test",
      "newcomer@acme.test",
    ]);
    expect(acme[0]).toEqual({ email: "admin@acme.test", user_id: expect.any(String), role: "Admin" });
    expect((await t.f.call("other", "GET", url)).json().map((u: { email: string }) => u.email)).toEqual([
      "other@globex.test",
    ]);
    for (const who of ["memberKey", "adminKey", "none"] as Who[])
      expect((await t.f.call(who, "GET", url)).statusCode).toBe(401);
  });
});
