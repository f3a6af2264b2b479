// antd's dark algorithm, answered from a table for the one seed the console uses. The algorithm
// derives about 400 tokens from antd's default seed, among them a ten-shade palette for each preset
// color: about 6 ms of main thread on each visit, before the console's first render can draw
// anything. The table (dark-map-token.json, written by scripts/write-dark-map-token.ts and checked
// against antd by tests/unit/dark-algorithm.test.tsx) holds what the algorithm returns for that
// seed, so the theme, its token hash and the build's precomputed styles stay exactly the same. Any
// other seed, or a call that extends another algorithm's tokens, is antd's to answer.
import { theme } from "antd";
import type { MapToken, SeedToken } from "antd/es/theme/interface";
import darkMapToken from "./dark-map-token.json";

const DEFAULT_SEED: Readonly<SeedToken> = theme.defaultSeed;
const DARK_MAP_TOKEN = darkMapToken as MapToken;

function isDefaultSeed(seed: SeedToken): boolean {
  const keys = Object.keys(seed) as (keyof SeedToken)[];
  return (
    keys.length === Object.keys(DEFAULT_SEED).length && keys.every((key) => seed[key] === DEFAULT_SEED[key])
  );
}

/** The same answer as antd's `theme.darkAlgorithm`. */
export function darkAlgorithm(seed: SeedToken, mapToken?: MapToken): MapToken {
  if (mapToken === undefined && isDefaultSeed(seed)) return { ...DARK_MAP_TOKEN };
  return theme.darkAlgorithm(seed, mapToken);
}
