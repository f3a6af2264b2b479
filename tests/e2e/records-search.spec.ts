import { expect, test } from "@playwright/test";
import { signIn } from "./console";

// Records search on the seeded demo organization: while a search is typed and fetched the pager
// says "Searching..." (never the previous total), then shows the search's own total.

test("the records pager shows that it is searching, then the search's total", async ({ page }) => {
  await signIn(page, "admin@acme.test", "/");
  const pager = page.getByTestId("records-pagination");
  await expect(pager).toContainText("total records");
  const before = (await pager.textContent()) ?? "";

  // Every text the pager shows from the first keystroke to the search's result.
  await pager.evaluate((el) => {
    const seen: string[] = [];
    (window as unknown as { pagerTexts: string[] }).pagerTexts = seen;
    new MutationObserver(() => seen.push(el.textContent ?? "")).observe(el, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  const searched = page.waitForResponse(
    (res) => res.url().includes("/v1/usage/records") && res.url().includes("search=Many-shot"),
  );
  await page.getByPlaceholder("Search...").pressSequentially("Many-shot");
  await expect(pager).toHaveText("Searching...");
  const res = await searched;
  const { total } = (await res.json()) as { total: number };
  expect(total).toBeGreaterThan(0);
  const pages = Math.ceil(total / 10).toLocaleString("en-US");
  await expect(pager).toHaveText(`Page 1 of ${pages} (${total.toLocaleString("en-US")} total records)`);
  await expect(page.locator(".ant-table-tbody tr.ant-table-row").first()).toContainText("Many-shot");

  const texts = await page.evaluate(() => (window as unknown as { pagerTexts: string[] }).pagerTexts);
  expect(texts).not.toContain(before);
  const after = (await pager.textContent()) ?? "";
  expect(texts.every((t) => t === "Searching..." || t === after)).toBe(true);
});
