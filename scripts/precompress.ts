// Brotli and gzip copies of the built console's text files, made once at build time so that the
// server sends them as they are (no compression per request, and the strongest levels, which are
// too slow to run per request). The server picks `x.br` or `x.gz` next to `x` by the request's
// Accept-Encoding and falls back to `x` itself.
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Logger, Plugin } from "vite";

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Text formats; images other than SVG and fonts are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map|webmanifest)$/;
/** Below this, a compressed copy saves less than the headers and a round of decoding cost. */
const MIN_BYTES = 1024;

async function* filesUnder(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

export type Precompressed = { file: string; bytes: number; br?: number; gzip?: number };

/**
 * Writes `file.br` (brotli, quality 11) and `file.gz` (gzip, level 9) for each compressible file
 * under `dir` of at least 1 kB, keeping a copy only when it is smaller than the file. Returns
 * what it wrote, file by file.
 */
export async function precompressDir(dir: string): Promise<Precompressed[]> {
  const files: string[] = [];
  for await (const file of filesUnder(dir)) if (COMPRESSIBLE.test(file)) files.push(file);
  return Promise.all(
    files.map(async (file) => {
      const bytes = (await stat(file)).size;
      const result: Precompressed = { file, bytes };
      if (bytes < MIN_BYTES) return result;
      const source = await readFile(file);
      const [br, gzipped] = await Promise.all([
        brotli(source, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes,
          },
        }),
        gz(source, { level: constants.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < bytes) {
        await writeFile(`${file}.br`, br);
        result.br = br.length;
      }
      if (gzipped.length < bytes) {
        await writeFile(`${file}.gz`, gzipped);
        result.gzip = gzipped.length;
      }
      return result;
    }),
  );
}

/** The Vite plugin: precompresses the output directory once the build has written it. */
export function precompress(): Plugin {
  let outDir = "";
  let logger: Logger | undefined;
  return {
    name: "eval-console:precompress",
    apply: "build",
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      logger = config.logger;
    },
    async closeBundle() {
      const written = await precompressDir(outDir);
      const sum = (pick: (p: Precompressed) => number | undefined) =>
        written.reduce((total, p) => total + (pick(p) ?? p.bytes), 0);
      const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
      logger?.info(
        `precompressed ${written.filter((p) => p.br !== undefined).length} files: ` +
          `${kb(sum((p) => p.bytes))} → brotli ${kb(sum((p) => p.br))}, gzip ${kb(sum((p) => p.gzip))}`,
      );
    },
  };
}
