// "/operator/organizations": every customer organization, searched by name or slug and paged by
// the server; each opens its operator page (price rules, billing cycles, payments). Provider
// operators only.
import { useLink, useNavigation } from "@refinedev/core";
import { Typography } from "antd";
import { ListPage } from "../../components/layout/list-page";
import { formatColumn } from "../../components/table/columns";
import { FilterForm } from "../../components/table/filter-form";
import { ListTable } from "../../components/table/list-table";
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
  const list = useListTable<OperatorOrganization, SearchValues>({
    resource: resource.name,
    pageSize: ORGANIZATIONS_PAGE_SIZE,
    onSearch: (values) => [searchFilter("name", values.name)],
  });
  const search = filterText(list.filters, "name");

  return (
    <ListPage resource={resource.name} title="Organizations" query={list.tableQuery}>
      <FilterForm<SearchValues>
        searchFormProps={list.searchFormProps}
        initialValues={{ name: search }}
        label="Organization search"
      >
        <SearchField name="name" label="Search organizations" placeholder="Search by name or slug..." />
      </FilterForm>
      <ListTable<OperatorOrganization>
        list={list}
        failed="The organizations could not be loaded."
        empty={search ? `No organizations match "${search}"` : "No organizations yet"}
        scroll={{ x: 720 }}
        pager={{ one: "organization" }}
        columns={[
          {
            title: "Name",
            dataIndex: "name",
            key: "name",
            ellipsis: true,
            render: (name: string, o) => <Link to={showUrl(resource.name, o.organization_uuid)}>{name}</Link>,
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
          formatColumn<OperatorOrganization>("Created", "created_at", formatUtcDate, { width: 150 }),
        ]}
      />
    </ListPage>
  );
}
