// The console's `parse` router binding gives what the stock one (@refinedev/react-router) gives for
// the same address, on the console's own routes and resources, and gives every reader of one
// address the same answer (made once, not once per reader and render).
import { type ParseResponse, ResourceContext } from "@refinedev/core";
import bindings from "@refinedev/react-router";
import { cleanup, render } from "@testing-library/react";
import fc from "fast-check";
import { createMemoryRouter, RouterProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { useParse } from "../../src/providers/address-parse";
import { refineResources } from "../../src/resources";

/** Both bindings' answers for `address`, read in a route of `pattern` as the console's pages are. */
type Answers = { stock?: ParseResponse; ours: ParseResponse[] };

/** The stock binding's answer and two readers' answers of ours, written into `answers`. */
function Readers({ answers }: { answers: Answers }) {
  answers.stock = bindings.parse?.()();
  answers.ours = [useParse?.()(), useParse?.()()].filter((a): a is ParseResponse => a !== undefined);
  return null;
}

function parsedAt(address: string, pattern: string) {
  const answers: Answers = { ours: [] };
  const router = createMemoryRouter([{ path: pattern, element: <Readers answers={answers} /> }], {
    initialEntries: [address],
  });
  render(
    <ResourceContext.Provider value={{ resources: refineResources }}>
      <RouterProvider router={router} />
    </ResourceContext.Provider>,
  );
  cleanup();
  return answers;
}

describe("the address parser", () => {
  it("reads the console's addresses as the stock binding does", () => {
    const cases: [string, string][] = [
      ["/organization/workspaces", "/organization/workspaces"],
      [
        "/eval-runs?currentPage=2&pageSize=50&sorters[0][field]=started_at&sorters[0][order]=asc",
        "/eval-runs",
      ],
      [
        "/organization/audit-log?filters[0][field]=q&filters[0][operator]=contains&filters[0][value]=R%26D",
        "/organization/audit-log",
      ],
      ["/workspace/ws%201?tab=members&to=%2Fbilling", "/workspace/:id"],
      ["/eval-runs/run-7", "/eval-runs/:id"],
      ["/?period=c-1&grouping=weekly", "/"],
      ["/no/such/page?currentPage=x", "*"],
    ];
    for (const [address, pattern] of cases) {
      const { stock, ours } = parsedAt(address, pattern);
      expect(stock, address).toBeDefined();
      expect(ours[0], address).toEqual(stock);
    }
  });

  it("gives every reader of one address the same answer", () => {
    const { ours } = parsedAt("/eval-runs?currentPage=3", "/eval-runs");
    expect(ours).toHaveLength(2);
    expect(ours[0]).toBe(ours[1]);
  });

  it("agrees with the stock binding on any query string", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 4 }),
        (query) => {
          const search = new URLSearchParams(query).toString();
          const { stock, ours } = parsedAt(`/eval-runs${search ? `?${search}` : ""}`, "/eval-runs");
          expect(ours[0]).toEqual(stock);
        },
      ),
      { numRuns: 60 },
    );
  });
});
