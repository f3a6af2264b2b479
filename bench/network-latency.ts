// --latency of the browser benchmarks: Chromium's network emulation (as DevTools' throttling) adds
// a fixed delay to every request a page sends to the network, so that its round trips count as over
// a real connection instead of loopback's near nothing. Cached files are not delayed.
import type { BrowserContext, Page } from "@playwright/test";

const slowed = new WeakSet<Page>();

/** Adds `ms` to every request of `page` from now on (once per page; nothing for 0). */
export async function addLatency(context: BrowserContext, page: Page, ms: number): Promise<void> {
  if (ms <= 0 || slowed.has(page)) return;
  slowed.add(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: ms,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
}
