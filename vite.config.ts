import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompress } from "./scripts/precompress";

// The console is plain static files; the server (or any static host) serves dist/.
// In `vite` dev mode, /config.json and the API are proxied to a running `npm run serve`.
export default defineConfig({
  // Brotli and gzip copies of every text file, which the server sends as they are.
  plugins: [react(), precompress()],
  build: {
    outDir: "dist",
    chunkSizeWarningLimit: 1600,
    // Charts (~450 KB gzip) are imported only by the billing page's lazily loaded chart module, so
    // Rollup gives them their own chunk, fetched when the chart is first shown. (A manualChunks
    // "charts" entry would also capture React and other modules the entry shares, and make the
    // entry import, and preload, the whole chart chunk.)
  },
  server: {
    port: 5173,
    proxy: {
      "/config.json": "http://localhost:3000",
      "/v1": "http://localhost:3000",
    },
  },
});
