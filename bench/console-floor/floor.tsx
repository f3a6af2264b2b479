// The floor of bench/console.ts: the least a page showing a list of the console's data must do in
// the same browser, from the same server — refresh the session at the identity service, make one
// real API call with its access token, draw the rows in an Ant Design table in the console's dark
// theme. No router, no Refine, no shell. Built by the benchmark (never part of the console's build)
// and served beside the console's files. The address says what to call:
//   /floor.html?auth=<identity service>&call=<product API path or identity:<client API path>>
// where "{orgId}" in the path becomes the session's organization.
import { ConfigProvider, Table, theme } from "antd";
import { createRoot } from "react-dom/client";

type Row = Record<string, unknown>;

const params = new URLSearchParams(window.location.search);
const auth = params.get("auth") ?? "";
const call = params.get("call") ?? "";

async function rows(): Promise<Row[]> {
  const session = await fetch(`${auth}/api/v1/refresh_token`, { credentials: "include" });
  const token = (await session.json()) as {
    access_token: string;
    org_id_to_org_member_info?: Record<string, unknown>;
  };
  const orgId = Object.keys(token.org_id_to_org_member_info ?? {})[0] ?? "";
  const path = call.replace("{orgId}", orgId);
  // The identity service's client API takes the session cookie; the product API the token.
  const response = path.startsWith("identity:")
    ? await fetch(`${auth}/api/fe/v3${path.slice("identity:".length)}`, {
        credentials: "include",
        headers: { "X-CSRF-Token": "-.-" },
      })
    : await fetch(path, { headers: { Authorization: `Bearer ${token.access_token}` } });
  const body = (await response.json()) as unknown;
  // The list is the answer itself or its first array (records, workspaces, users, …).
  const list = Array.isArray(body) ? body : Object.values(body as Row).find(Array.isArray);
  return (list ?? []) as Row[];
}

function Floor({ data }: { data: Row[] }) {
  const keys = Object.keys(data[0] ?? {}).slice(0, 6);
  return (
    <ConfigProvider theme={{ algorithm: theme.darkAlgorithm }}>
      <Table
        rowKey="__row"
        dataSource={data.map((row, i) => ({ ...row, __row: i }))}
        pagination={false}
        columns={keys.map((key) => ({ key, title: key, render: (_: unknown, row: Row) => String(row[key]) }))}
      />
    </ConfigProvider>
  );
}

const container = document.getElementById("root");
if (container)
  void rows().then((data) => {
    createRoot(container).render(<Floor data={data} />);
  });
