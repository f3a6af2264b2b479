// Summary texts of the multi-select dropdowns (spec §2 workspace filter and the filter bar).

/**
 * The workspace select's summary: "All workspaces" with none chosen, the workspace's name with one
 * ("1 selected" when its name is unknown), "{first name} +{n-1}" with more.
 */
export function workspaceSummary(
  selected: readonly string[],
  nameOf: (uuid: string) => string | undefined,
): string {
  if (selected.length === 0) return "All workspaces";
  const first = selected.map(nameOf).find((name): name is string => !!name);
  if (selected.length === 1) return first ?? "1 selected";
  return first ? `${first} +${selected.length - 1}` : `${selected.length} selected`;
}

/** A filter's summary: "All", the one label, or "{first} +{n-1}". */
export function filterSummary(selected: readonly string[], labelOf: (value: string) => string): string {
  if (selected.length === 0) return "All";
  const first = labelOf(selected[0] as string);
  return selected.length === 1 ? first : `${first} +${selected.length - 1}`;
}

/** Toggles one value in a selection, keeping the options' order. */
export function toggleValue(selected: readonly string[], value: string, order: readonly string[]): string[] {
  const next = selected.includes(value) ? selected.filter((v) => v !== value) : [...selected, value];
  const rank = (v: string) => {
    const i = order.indexOf(v);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  return next.sort((a, b) => rank(a) - rank(b));
}

/** Options to offer: those present in the data, plus chosen values the data no longer has. */
export function optionsWithSelected(present: readonly string[], selected: readonly string[]): string[] {
  const out = [...present];
  for (const value of selected) if (!out.includes(value)) out.push(value);
  return out;
}
