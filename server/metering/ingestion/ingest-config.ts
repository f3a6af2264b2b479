/**
 * What ingestion reads about an organization before it can judge a batch: the price rules (its own
 * and the global list), its billing cycles and which workspace uuids are its live workspaces. Each
 * API process keeps them per organization and checks one counter before every batch instead of
 * reading them again: metering_config_versions, raised by database triggers in the transaction of
 * any change to price_rules, billing_cycles or workspaces (migration 0011), whoever makes it (API,
 * CLI, another process). The counter is read before the cached data is, so a batch is judged by the
 * configuration committed when it started — what reading the tables themselves gave — and never by
 * a rule or workspace another process has replaced before that.
 */
import { and, inArray, sql } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import { liveWorkspacesOf } from "../../db/live-workspaces";
import { workspaces } from "../../db/schema";
import type { Db } from "../../platform/database";
import { type Cycle, listCycles } from "../billing/cycles";
import { loadPriceRules } from "../pricing/prices";
import { createRuleMatcher, type Priceable, type PriceRule } from "../pricing/rule-matching";

export type IngestConfig = {
  /** The counters' sum (the organization's and the global list's) when this was read. */
  version: string;
  rules: readonly PriceRule[];
  /** The best rule in force for an event, as matchPriceRule picks it. */
  price: (e: Priceable) => PriceRule | null;
  /** Start date ascending, as listCycles returns them. */
  cycles: readonly Cycle[];
  /**
   * Workspace uuid → a live workspace of the organization (true) or not (false), as far as asked;
   * the least recently asked go past MAX_WORKSPACES.
   */
  workspaces: LRUCache<string, boolean>;
};

/** Organizations remembered per process; past this many, the least recently used go. */
const MAX_ORGANIZATIONS = 1_000;
/** Workspace answers remembered per organization. */
const MAX_WORKSPACES = 10_000;

type Rows<T> = { rows: T[] };

/** The organization's configuration version: its counter plus the global price list's. */
async function readVersion(db: Db, organizationUuid: string): Promise<string> {
  const result = (await db.execute(sql`
    select coalesce(sum(version), 0)::text as v from metering_config_versions
     where scope = ${organizationUuid} or scope = ''`)) as unknown as Rows<{ v: string }>;
  return result.rows[0]?.v ?? "0";
}

export type IngestConfigCache = {
  /** The organization's configuration as of now: cached if its version is unchanged. */
  get(organizationUuid: string): Promise<IngestConfig>;
  /** Which of `ids` are live workspaces of the organization (asks the database only for new ids). */
  liveWorkspaces(
    config: IngestConfig,
    organizationUuid: string,
    ids: readonly string[],
  ): Promise<Set<string>>;
};

export function createIngestConfigCache(db: Db): IngestConfigCache {
  const byOrg = new LRUCache<string, IngestConfig>({ max: MAX_ORGANIZATIONS });
  return {
    async get(organizationUuid) {
      const version = await readVersion(db, organizationUuid);
      const cached = byOrg.get(organizationUuid);
      if (cached && cached.version === version) return cached;
      const [rules, cycles] = await Promise.all([
        loadPriceRules(db, organizationUuid),
        listCycles(db, organizationUuid),
      ]);
      const config: IngestConfig = {
        version,
        rules,
        price: createRuleMatcher(rules),
        cycles,
        workspaces: new LRUCache({ max: MAX_WORKSPACES }),
      };
      byOrg.set(organizationUuid, config);
      return config;
    },
    async liveWorkspaces(config, organizationUuid, ids) {
      // Answered from what was known when asked, then the database: a bounded cache may let
      // older answers go while this call adds new ones.
      const answers = new Map(ids.map((id) => [id, config.workspaces.get(id)]));
      const unknown = ids.filter((id) => answers.get(id) === undefined);
      if (unknown.length) {
        const rows = await db
          .select({ id: workspaces.workspaceUuid })
          .from(workspaces)
          .where(and(liveWorkspacesOf(organizationUuid), inArray(workspaces.workspaceUuid, unknown)));
        const live = new Set(rows.map((r) => r.id));
        for (const id of unknown) {
          answers.set(id, live.has(id));
          config.workspaces.set(id, live.has(id));
        }
      }
      return new Set(ids.filter((id) => answers.get(id)));
    },
  };
}

/** One cache per database handle, i.e. per API process (tests open several products). */
const caches = new WeakMap<Db, IngestConfigCache>();

export function ingestConfigCache(db: Db): IngestConfigCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = createIngestConfigCache(db);
    caches.set(db, cache);
  }
  return cache;
}
