// The Workspace multi-select (spec §2): All workspaces, My workspace ({name}), then every
// workspace of the organization, deleted ones included. Hidden without an organization or workspaces.
import { Tag } from "antd";
import { memo, useMemo } from "react";
import { toggleValue, workspaceSummary } from "../../lib/billing/selection";
import type { WorkspaceRecord } from "../../lib/workspaces";
import type { CurrentUser } from "../../providers/current-user-types";
import { MultiSelect } from "./multi-select";

type Props = {
  user: CurrentUser | undefined;
  workspaces: readonly WorkspaceRecord[];
  selected: readonly string[];
  onChange: (uuids: string[]) => void;
};

function WorkspaceSelectView({ user, workspaces, selected, onChange }: Props) {
  const names = useMemo(() => new Map(workspaces.map((w) => [w.workspace_uuid, w.name])), [workspaces]);
  const order = useMemo(() => workspaces.map((w) => w.workspace_uuid), [workspaces]);
  if (!user?.organization?.org_uuid || workspaces.length === 0) return null;
  const mine = user.workspace;
  return (
    <MultiSelect
      testId="workspace-select"
      label="Workspace"
      allLabel="All workspaces"
      summary={workspaceSummary(selected, (uuid) => names.get(uuid))}
      selected={selected}
      options={workspaces.map((w) => ({
        value: w.workspace_uuid,
        text: w.name,
        label: (
          <>
            {w.name}
            {w.deleted_at ? (
              <Tag bordered={false} style={{ marginInlineStart: 8 }}>
                Deleted
              </Tag>
            ) : null}
          </>
        ),
      }))}
      shortcuts={
        mine?.workspace_uuid
          ? [
              {
                key: "mine",
                label: `My workspace (${mine.name})`,
                onSelect: () => onChange([mine.workspace_uuid]),
              },
            ]
          : []
      }
      onToggle={(uuid) => onChange(toggleValue(selected, uuid, order))}
      onClear={() => onChange([])}
    />
  );
}

/** Memoized: the billing page re-renders on each of its reads' answers; this part only when its own props change. */
export const WorkspaceSelect = memo(WorkspaceSelectView);
