// "/operator/organizations": every customer organization, searched by name or slug and paged by
// the server; each opens its operator page (price rules, billing cycles, payments). Provider
// operators only.
import { useLink, useNavigation } from "@refinedev/core";
import { Card, Empty, Flex, Typography } from "antd";
import { QueryTable } from "../../components/feedback/query-table";
import { PageList } from "../../components/layout/page-list";
import { RefetchButton } from "../../components/refetch-button";
import { countedPagination } from "../../components/table/counted-pagination";
import { FilterForm } from "../../components/table/filter-form";
import { SearchField } from "../../components/table/search-field";
import { useListTable } from "../../components/table/use-list-table";
import { formatUtcDate } from "../../lib/billing/dates";
import type { OperatorOrganization } from "../../lib/operator";
import { filterText, searchFilter } from "../../lib/table-filters";
import { operatorOrganizations as resource } from "../../resources/operator-organizations";

export const ORGANIZATIONS_PAGE_SIZE = 20;

type SearchValues = { name?: string };

export function OperatorOrganizationsListPage() {
  const Link = useLink();
  const { showUrl } = useNavigation();
  // Page and search are Refine's, kept in the URL; a changed search starts at the first page.
  const { tableProps, tableQuery, searchFormProps, filters } = useListTable<
    OperatorOrganization,
    SearchValues
  >({
    resource: resource.name,
    pageSize: ORGANIZATIONS_PAGE_SIZE,
    onSearch: (values) => [searchFilter("name", values.name)],
  });
  const search = filterText(filters, "name");

  return (
    <PageList
      resource={resource.name}
      title="Organizations"
      headerButtons={<RefetchButton query={tableQuery} />}
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      <Card>
        <Flex vertical gap={0}>
          <FilterForm<SearchValues>
            searchFormProps={searchFormProps}
            initialValues={{ name: search }}
            label="Organization search"
            style={{ marginBottom: 16 }}
          >
            <SearchField name="name" label="Search organizations" placeholder="Search by name or slug..." />
          </FilterForm>
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
            pagination={countedPagination(tableProps.pagination, "organization")}
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
