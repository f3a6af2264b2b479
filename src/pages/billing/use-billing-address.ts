// Billing & Usage's address, written in one place. The records table's page, sort, filters and
// search (Refine's useTable), the page's view (the billing period and the chart's grouping and
// metric) and the Explain drawer's place change apart but are written together, by one replace, so
// no writer can start from an address another has not finished writing. A reload or a shared link
// opens the same view; parameters that are not the page's (a campaign's) are kept. Changes replace
// the address: Back leaves the page instead of stepping through every click.
import { type CrudFilter, type CrudSort, parseTableParams, useGo } from "@refinedev/core";
import {
  type Dispatch,
  type RefObject,
  type SetStateAction,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { useLocation } from "react-router";
import { type ExplainView, explainParams, parseExplain, sameExplain } from "../../lib/billing/explain";
import { type BillingView, parseBillingView, viewQuery } from "../../lib/billing/view-url";

/** The records table's state as the address holds it (what useTable starts from). */
export type TableStart = { currentPage: number; sorters: CrudSort[]; filters: CrudFilter[] };

export type BillingAddress = {
  view: BillingView;
  setView: Dispatch<SetStateAction<BillingView>>;
  /** Where "Explain this charge" is (null: closed). */
  explain: ExplainView | null;
  setExplain: Dispatch<SetStateAction<ExplainView | null>>;
  tableStart: TableStart;
  /** Searches this page wrote that the router has not shown yet. */
  pending: RefObject<string[]>;
};

const sameView = (a: BillingView, b: BillingView) =>
  a.cycleUuid === b.cycleUuid && a.grouping === b.grouping && a.metric === b.metric;

/** The page's view and the table's starting state, read from the address. */
export function useBillingAddress(): BillingAddress {
  const { search } = useLocation();
  const tableStart = useMemo<TableStart>(() => {
    const parsed = parseTableParams(search.startsWith("?") ? search : `?${search}`);
    return {
      currentPage: parsed.parsedCurrentPage || 1,
      sorters: parsed.parsedSorter,
      filters: parsed.parsedFilters,
    };
  }, [search]);
  // The view is state, so two quick clicks both count (each starts from the last one's view), not
  // the address, which the router shows a render or two after it was written.
  const [view, setView] = useState(() => parseBillingView(new URLSearchParams(search)));
  const [explain, setExplain] = useState(() => parseExplain(new URLSearchParams(search)));
  const pending = useRef<string[]>([]);
  // An address this page did not write (a link to "/", the sider, Back): the view follows it.
  useEffect(() => {
    const at = pending.current.indexOf(search);
    if (at !== -1) {
      pending.current.splice(0, at + 1);
      return;
    }
    const params = new URLSearchParams(search);
    const next = parseBillingView(params);
    setView((was) => (sameView(was, next) ? was : next));
    const nextExplain = parseExplain(params);
    setExplain((was) => (sameExplain(was, nextExplain) ? was : nextExplain));
  }, [search]);
  return { view, setView, explain, setExplain, tableStart, pending };
}

/** What the records table holds that the address keeps. */
type TableState = { currentPage: number; pageSize: number; sorters: CrudSort[]; filters: CrudFilter[] };

/** The address's one writer: the view, the drill-down and the table's state, replaced together. */
export function useBillingAddressWrite(address: BillingAddress, table: TableState) {
  const { view, explain, pending } = address;
  const { currentPage, pageSize, sorters, filters } = table;
  const { search } = useLocation();
  const go = useGo();
  const goRef = useRef(go);
  goRef.current = go;
  const searchRef = useRef(search);
  searchRef.current = search;
  useEffect(() => {
    const query = { ...viewQuery(view), ...explainParams(explain), currentPage, pageSize, sorters, filters };
    const options = { keepQuery: true, keepHash: true };
    const target = String(goRef.current({ type: "path", query, options }) ?? "");
    const hashAt = target.indexOf("#");
    const path = hashAt === -1 ? target : target.slice(0, hashAt);
    const queryAt = path.indexOf("?");
    const next = queryAt === -1 ? "" : path.slice(queryAt);
    // Already the address (a first visit's own, or the router catching up): nothing to write.
    const last = pending.current.at(-1) ?? searchRef.current;
    if (next === last) return;
    pending.current.push(next);
    goRef.current({ type: "replace", query, options });
  }, [view, explain, currentPage, pageSize, sorters, filters, pending]);
}
