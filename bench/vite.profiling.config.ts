// The console's build on React's profiling renderer (`react-dom/profiling`), for
// bench/react-render.ts: every component's render time is recorded on its fiber, as React DevTools'
// profiler reads it. Never served to users: `npx vite build --config bench/vite.profiling.config.ts
// --minify false --outDir DIR` (unminified, so components keep their names).
import { mergeConfig } from "vite";
import base from "../vite.config";

export default mergeConfig(base, {
  resolve: { alias: [{ find: /^react-dom\/client$/, replacement: "react-dom/profiling" }] },
});
