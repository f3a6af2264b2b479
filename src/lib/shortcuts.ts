// Ctrl+B (Windows/Linux) or Cmd+B (macOS) toggles the sidebar, like common editors and dashboards.

type KeyLike = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">;

export function isToggleSidebarShortcut(event: KeyLike): boolean {
  if (!(event.ctrlKey || event.metaKey)) return false;
  if (event.altKey || event.shiftKey) return false;
  return event.key.toLowerCase() === "b";
}
