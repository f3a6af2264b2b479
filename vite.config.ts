import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The console is plain static files; the server (or any static host) serves dist/.
// In `vite` dev mode, /config.json and the API are proxied to a running `npm run serve`.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    chunkSizeWarningLimit: 1600,
    rollupOptions: {
      output: {
        // Charts (~450 KB gzip) load only with the billing page; the rest splits naturally.
        manualChunks(id) {
          if (id.includes("@antv") || id.includes("@ant-design/plots")) return "charts";
          return undefined;
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      "/config.json": "http://localhost:3000",
      "/v1": "http://localhost:3000",
    },
  },
});
