// Debian's Chromium as the browser tests and the console benchmarks launch it: never a downloaded
// browser, and the flags that work headless on these machines (no sandbox, no GPU, no QUIC, none of
// Chromium's own background traffic).
export const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};
