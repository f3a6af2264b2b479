import { describe, expect, it } from "vitest";
import { documentTitle } from "../../src/lib/document-title";

describe("document titles", () => {
  it("names the page, then the product; a record's page says which kind; an unknown path says so", () => {
    expect(documentTitle({ label: "Personal API Keys", action: "list" }, "Eval Console")).toBe(
      "Personal API Keys · Eval Console",
    );
    expect(documentTitle({ label: "Workspaces", action: "show" }, "Eval Console")).toBe(
      "Details · Workspaces · Eval Console",
    );
    expect(documentTitle({ label: "Webhooks", action: "edit" }, "Acme Evals")).toBe(
      "Edit · Webhooks · Acme Evals",
    );
    expect(documentTitle(undefined, "Eval Console")).toBe("Page not found · Eval Console");
    expect(documentTitle({ label: "" }, "Eval Console")).toBe("Page not found · Eval Console");
  });
});
