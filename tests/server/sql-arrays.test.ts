import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrayLiteral } from "../../server/metering/shared/sql-arrays";

describe("array literals for bulk statements", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(async () => db?.close());

  it("read back in PostgreSQL as exactly the values given, NULL and awkward text included", async () => {
    const values = [
      "plain",
      "",
      null,
      "NULL",
      'a "quoted" word',
      'back\\slash \\" both',
      "comma, {braces}, newline\nand tab\t",
      "  spaced  ",
      "émoji 🙂 and ünïcode",
    ];
    const { rows } = await db.query<{ v: string | null }>(
      "select v from unnest($1::text[]) with ordinality as x(v, i) order by i",
      [arrayLiteral(values)],
    );
    expect(rows.map((r) => r.v)).toEqual(values);
    const empty = await db.query("select cardinality($1::text[]) as n", [arrayLiteral([])]);
    expect(empty.rows).toEqual([{ n: 0 }]);
  });
});
