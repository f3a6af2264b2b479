import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [react()],
        test: {
          name: "unit",
          environment: "jsdom",
          include: ["tests/unit/**/*.test.{ts,tsx}"],
          setupFiles: ["tests/unit/setup.ts", "tests/unit/support/network-setup.ts"],
          // Files share a worker's module graph (antd, Refine, React load once per worker, not once
          // per file: about half the layer's CPU time). Setup files still run for every file, and
          // each test cleans the DOM, cookies and network handlers after itself.
          isolate: false,
          css: false,
          // A page test renders antd in jsdom: about a second on an idle machine, many more when the
          // machine is busy.
          testTimeout: 60_000,
          // Refine's router bindings must share the test's react-router instance.
          server: { deps: { inline: [/@refinedev\//] } },
        },
      },
      {
        // The build's own plugins, run through the bundler on small module graphs (no browser: the
        // bundler's native parts do not run under jsdom).
        test: {
          name: "build",
          environment: "node",
          include: ["tests/build/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: "server",
          environment: "node",
          include: ["tests/server/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Each PGlite instance holds ~700 MiB; keep the number of workers small. Server files
          // run after the unit files (a project with its own worker count needs its own group).
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          // One migrated and seeded database for the run, which each product copies; the built
          // server, which the command-line suites spawn.
          globalSetup: ["tests/server/seeded-template.ts", "tests/server/server-bundle.ts"],
        },
      },
    ],
  },
});
