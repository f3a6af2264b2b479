// The sider's entries and the user's home, as the access-control provider answers. useMenu gives
// the declared entries (a list page, not hidden) in declaration order; each is asked "may list?"
// through the provider, so the sider, the header's home link and the redirect away from a refused
// page follow whatever provider the console is given. antd's Menu takes its entries as data
// (`items`; JSX children are deprecated), so the answers are read as data here instead of wrapping
// each entry in <CanAccess> as Refine's own sider does.
import { keys, type TreeMenuItem, useCanWithoutCache, useMenu } from "@refinedev/core";
import { useQueries } from "@tanstack/react-query";
import { ACCESS_STALE_MS } from "../../providers/access-control-provider";

export type MenuEntry = TreeMenuItem & { route: string };

export function useMenuEntries() {
  const { menuItems, selectedKey } = useMenu();
  const { can } = useCanWithoutCache();
  const candidates = menuItems.filter((item): item is MenuEntry => typeof item.route === "string");
  const answers = useQueries({
    queries: candidates.map((item) => ({
      queryKey: keys().access().resource(item.name).action("list").get(),
      queryFn: async () =>
        can ? can({ resource: item.name, action: "list", params: { resource: item } }) : { can: true },
      staleTime: ACCESS_STALE_MS,
    })),
  });
  // Undefined until every answer is in: the sider never shows an entry it then takes away.
  const entries = answers.some((answer) => answer.isPending)
    ? undefined
    : candidates.filter((_, i) => answers[i]?.data?.can === true);
  /** Where the user lands: their first entry (Billing & Usage for administrators, else Workspaces). */
  const home = entries?.[0]?.route;
  return { entries, selectedKey, home };
}
