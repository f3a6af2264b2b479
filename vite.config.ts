import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { antdStaticStyles } from "./scripts/antd-static-styles";
import { packagesWithoutSideEffects } from "./scripts/packages-without-side-effects";
import { precompress } from "./scripts/precompress";

const local = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** The console's shell (React, antd, Refine, the routes), imported by the entry. */
const SHELL = local("./src/render-console.tsx");

/**
 * The entry (src/main.tsx) holds only the config and session requests and imports the console's
 * shell (src/render-console.tsx: React, antd, Refine, the routes) dynamically, so that evaluating
 * the shell never holds those requests up. The entry itself runs only once index.html's stylesheet
 * has loaded, so its import would start the shell's download late; a modulepreload link in
 * index.html fetches the shell with the page instead.
 */
function preloadShell(): Plugin {
  return {
    name: "eval-console:preload-shell",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, { bundle }) {
        const chunk = Object.values(bundle ?? {}).find(
          (output) => output.type === "chunk" && output.isDynamicEntry && output.moduleIds.includes(SHELL),
        );
        if (!chunk) throw new Error("the shell's chunk (src/render-console.tsx) is not in the build");
        const href = `/${chunk.fileName}`;
        return [{ tag: "link", attrs: { rel: "modulepreload", crossorigin: true, href }, injectTo: "head" }];
      },
    },
  };
}

// The console is plain static files; the server (or any static host) serves dist/.
// In `vite` dev mode, /config.json and the API are proxied to a running `npm run serve`.
export default defineConfig({
  // antd's styles computed at build time into a stylesheet (antd's public extractStyle), packages
  // imported for nothing left out, the shell's chunk preloaded by index.html, then brotli and gzip
  // copies of every text file, which the server sends as they are.
  plugins: [react(), antdStaticStyles(), packagesWithoutSideEffects(), preloadShell(), precompress()],
  build: {
    outDir: "dist",
    chunkSizeWarningLimit: 1600,
    rollupOptions: {
      output: {
        // A page's code is its chunk and the small chunks it shares with other pages (helpers,
        // hooks, a form dialog): 15-20 files of a few kB each for Billing & Usage, fetched only
        // once the shell had run, six at a time over HTTP/1.1. Rollup merges a side-effect-free
        // chunk under 30 kB into one loaded under similar conditions (mostly the shell, a few kB
        // more), so a first visit fetches a handful instead.
        experimentalMinChunkSize: 30_000,
        // The shell keeps its own name (Rollup names a merged chunk after one of its parts), which
        // the preload link and the browser tests find it by.
        chunkFileNames: (chunk) =>
          chunk.moduleIds.includes(SHELL) ? "assets/render-console-[hash].js" : "assets/[name]-[hash].js",
      },
    },
    // Charts (~350 kB gzip) are imported only by the billing page's lazily loaded chart module, so
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
