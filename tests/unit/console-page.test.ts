import { describe, expect, it } from "vitest";
import { scriptSafeJson } from "../../contract/script-safe-json";
import { withConsoleConfig } from "../../server/api/console-page";

// The configuration written into the page: in place of the /config.json preload, and unable to
// end its script element or change the page, whatever an operator put in an address or a name.

const CONFIG = {
  apiUrl: "https://api.example.test",
  authUrl: "https://auth.example.test",
  productName: "Eval Console",
};
const readBack = (html: string) =>
  JSON.parse(
    /<script type="application\/json" id="console-config">(.*?)<\/script>/s.exec(html)?.[1] ?? "null",
  );

describe("the page with its configuration", () => {
  it("replaces the preload link, or goes before </head> when there is none", () => {
    const withPreload =
      '<html><head><link rel="preload" href="/config.json" as="fetch" crossorigin /><title>x</title></head></html>';
    const page = withConsoleConfig(withPreload, CONFIG);
    expect(page).not.toContain("/config.json");
    expect(page.indexOf("console-config")).toBeLessThan(page.indexOf("<title>"));
    expect(readBack(page)).toEqual(CONFIG);

    const without = withConsoleConfig("<html><head><title>x</title></head><body></body></html>", CONFIG);
    expect(without).toMatch(
      /<title>x<\/title><script type="application\/json" id="console-config">.*<\/script><\/head>/,
    );
    expect(readBack(without)).toEqual(CONFIG);
  });

  it("cannot be broken out of: markup in a value stays text of the JSON", () => {
    const hostile = { ...CONFIG, productName: "</script><script>alert(1)</script><!-- & \u2028\u2029 $& $1" };
    const page = withConsoleConfig(
      '<head><link rel="preload" href="/config.json" as="fetch" /></head>',
      hostile,
    );
    // One script element opens and one closes: the value's own tags are escaped.
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page.match(/<\/script>/g)).toHaveLength(1);
    expect(page).not.toContain("<!--");
    // `$&` and `$1` are not replacement patterns here.
    expect(readBack(page)).toEqual(hostile);
    expect(scriptSafeJson("a\u2028b")).toBe('"a\\u2028b"');
  });
});
