// A list page's default view in the address: nothing, or exactly what its table writes for it.
import { describe, expect, it } from "vitest";
import { isDefaultView } from "../../src/lib/default-view";

const SORTED = { pageSize: 10, sort: { field: "date", order: "desc" as const } };

describe("isDefaultView", () => {
  it("takes the bare address and what the table writes for its default view", () => {
    expect(isDefaultView("", SORTED)).toBe(true);
    expect(
      isDefaultView("?pageSize=10&currentPage=1&sorters[0][field]=date&sorters[0][order]=desc", SORTED),
    ).toBe(true);
    // Encoded brackets, another order of the parameters, or only some of them: the same view.
    expect(
      isDefaultView("?sorters%5B0%5D%5Border%5D=desc&sorters%5B0%5D%5Bfield%5D=date&currentPage=1", SORTED),
    ).toBe(true);
    expect(isDefaultView("?currentPage=1", { pageSize: 25 })).toBe(true);
  });

  it("refuses another page, size, order, half a sorter, or any other parameter", () => {
    expect(isDefaultView("?pageSize=10&currentPage=2", SORTED)).toBe(false);
    expect(isDefaultView("?pageSize=50&currentPage=1", SORTED)).toBe(false);
    expect(isDefaultView("?sorters[0][field]=date&sorters[0][order]=asc", SORTED)).toBe(false);
    expect(isDefaultView("?sorters[0][field]=date", SORTED)).toBe(false);
    expect(isDefaultView("?sorters[0][field]=date&sorters[0][order]=desc", { pageSize: 10 })).toBe(false);
    expect(isDefaultView("?pageSize=10&currentPage=1&period=c-1", SORTED)).toBe(false);
    expect(
      isDefaultView("?filters[0][field]=action&filters[0][operator]=in&filters[0][value][0]=x", SORTED),
    ).toBe(false);
    // A page whose table writes nothing has only the bare address.
    expect(isDefaultView("?currentPage=1", undefined)).toBe(false);
  });
});
