// The build's Vite plugin for antd's static styles: runs scripts/extract-antd-styles.tsx (in its own
// process: it renders React on the server with antd's CommonJS build), writes the CSS it prints as
// a hashed file under assets/, and links it first in index.html's head. A stylesheet linked before
// the entry script holds the script back until it has loaded, so the styles and their cache-path
// map are in place before antd's first render looks for them, and nothing shows unstyled.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";

const local = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The stylesheet's file name: content-hashed like Vite's own assets, so it is cached for good. */
export const antdStylesFile = (css: string) =>
  `assets/antd-${createHash("sha256").update(css).digest("base64url").slice(0, 8)}.css`;

export function antdStaticStyles(): Plugin {
  let href = "";
  return {
    name: "eval-console:antd-static-styles",
    apply: "build",
    buildStart() {
      const run = spawnSync(local("../node_modules/.bin/tsx"), [local("./extract-antd-styles.tsx")], {
        env: { ...process.env, NODE_ENV: "production" },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      if (run.status !== 0) this.error(`extracting antd's styles failed:\n${run.stderr}`);
      const fileName = antdStylesFile(run.stdout);
      this.emitFile({ type: "asset", fileName, source: run.stdout });
      href = `/${fileName}`;
    },
    transformIndexHtml() {
      return [{ tag: "link", attrs: { rel: "stylesheet", href }, injectTo: "head-prepend" }];
    },
  };
}
