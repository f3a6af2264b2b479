import { describe, expect, it } from "vitest";
import { USERS_COLUMN_WIDTH, usersTableMinWidth } from "../../src/components/users/row-actions";

describe("Users tables' least width", () => {
  it("is the fixed columns' widths plus the email's least room, with or without the actions", () => {
    const { name, role, time, actions } = USERS_COLUMN_WIDTH;
    const email = usersTableMinWidth([]);
    expect(email).toBeGreaterThan(0);
    expect(usersTableMinWidth(["name", "role", "time", "actions"])).toBe(
      email + name + role + time + actions,
    );
    expect(usersTableMinWidth(["name", "role", "time"])).toBe(email + name + role + time);
  });
});
