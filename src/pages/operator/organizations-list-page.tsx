// "/operator/organizations": every customer organization, searched by name or slug and paged by
// the server; each opens its operator page (price rules, billing cycles, payments). Provider
// operators only.
import { useTable } from "@refinedev/antd";
import { type CrudFilter, type HttpError, useLink, useNavigation } from "@refinedev/core";
import { Card, Empty, Flex, Typography } from "antd";
import { useState } from "react";
import { QueryTable } from "../../components/feedback/query-table";
import { PageList } from "../../components/layout/page-list";
import { RefetchButton } from "../../components/refetch-button";
import { SearchBox } from "../../components/search-box";
import { formatUtcDate } from "../../lib/billing/dates";
import type { OperatorOrganization } from "../../lib/operator";
import { operatorOrganizations as resource } from "../../resources/operator-organizations";

export const ORGANIZATIONS_PAGE_SIZE = 20;
const SEARCH_DEBOUNCE_MS = 300;
const MAX_SEARCH_LENGTH = 200;

const searchFilter = (text: string): CrudFilter[] => [{ field: "name", operator: "contains", value: text }];

export function OperatorOrganizationsListPage() {
  const Link = useLink();
  const { showUrl } = useNavigation();
  const [search, setSearch] = useState("");
  const { tableProps, tableQuery, setFilters, setCurrentPage } = useTable<OperatorOrganization, HttpError>({
    resource: resource.name,
    syncWithLocation: false,
    pagination: { currentPage: 1, pageSize: ORGANIZATIONS_PAGE_SIZE, mode: "server" },
    sorters: { mode: "off" },
    filters: { mode: "server", initial: searchFilter("") },
    errorNotification: false,
  });

  return (
    <PageList
      resource={resource.name}
      title="Organizations"
      headerButtons={<RefetchButton query={tableQuery} />}
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      <Card>
        <Flex vertical gap={0}>
          <SearchBox
            label="Search organizations"
            placeholder="Search by name or slug..."
            delayMs={SEARCH_DEBOUNCE_MS}
            onSearch={(value) => {
              const text = value.trim().slice(0, MAX_SEARCH_LENGTH);
              if (text === search) return;
              setSearch(text);
              setFilters(searchFilter(text), "replace");
              setCurrentPage(1);
            }}
          />
          <QueryTable<OperatorOrganization>
            query={tableQuery}
            failed="The organizations could not be loaded."
            empty={
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={search ? `No organizations match "${search}"` : "No organizations yet"}
              />
            }
            {...tableProps}
            rowKey="organization_uuid"
            size="middle"
            scroll={{ x: 720 }}
            pagination={{
              ...tableProps.pagination,
              showSizeChanger: false,
              showTotal: (total) => `${total} organization${total === 1 ? "" : "s"}`,
            }}
            columns={[
              {
                title: "Name",
                dataIndex: "name",
                key: "name",
                ellipsis: true,
                render: (name: string, o) => (
                  <Link to={showUrl(resource.name, o.organization_uuid)}>{name}</Link>
                ),
              },
              {
                title: "Slug",
                dataIndex: "slug",
                key: "slug",
                width: 200,
                ellipsis: true,
                render: (slug: string) => <Typography.Text code>{slug}</Typography.Text>,
              },
              {
                title: "Members",
                dataIndex: "member_count",
                key: "member_count",
                width: 110,
                align: "right",
                render: (n: number) => n.toLocaleString("en-US"),
              },
              {
                title: "Created",
                dataIndex: "created_at",
                key: "created_at",
                width: 150,
                render: (at: string) => formatUtcDate(at),
              },
            ]}
          />
        </Flex>
      </Card>
    </PageList>
  );
}
