// Each page's browser-tab title: what the page is, then the product ("API Keys · Eval Console"), so
// several open tabs can be told apart. A page of one record says which kind it is ("Details ·
// Workspaces · Eval Console"); a path no page owns says so.

const ACTION_WORDS: Record<string, string> = { show: "Details", create: "New", edit: "Edit", clone: "Copy" };

export const NOT_FOUND_TITLE = "Page not found";

export function documentTitle(
  page: { label?: string; action?: string } | undefined,
  productName: string,
): string {
  if (!page?.label) return `${NOT_FOUND_TITLE} · ${productName}`;
  const word = page.action ? ACTION_WORDS[page.action] : undefined;
  return [word, page.label, productName].filter(Boolean).join(" · ");
}
