// "/account/api-keys": the signed-in user's personal API keys, kept by the identity service. The
// api-keys resource names the identity data provider and its calls; this page passes no URLs.
import { KeyOutlined } from "@ant-design/icons";
import { useModalForm } from "@refinedev/antd";
import { CanAccess, type HttpError, useDelete } from "@refinedev/core";
import { Card } from "antd";
import { useState } from "react";
import { ApiKeysTable } from "../../components/api-keys/api-keys-table";
import { CreateApiKeyDialog, type CreateApiKeyValues } from "../../components/api-keys/create-api-key-dialog";
import { DeleteApiKeyDialog } from "../../components/api-keys/delete-api-key-dialog";
import { NewApiKeyDialog } from "../../components/api-keys/new-api-key-dialog";
import { PageList } from "../../components/layout/page-list";
import { FilterForm } from "../../components/table/filter-form";
import { RefreshAndCreate } from "../../components/table/refresh-and-create";
import { SearchField } from "../../components/table/search-field";
import { useListTable } from "../../components/table/use-list-table";
import {
  API_KEY_PAGE_SIZE,
  API_KEY_SEARCH_DEBOUNCE_MS,
  apiKeyErrorMessage,
  type CreatedApiKey,
  type PersonalApiKey,
} from "../../lib/api-keys";
import { filterText, searchFilter } from "../../lib/table-filters";
import { apiKeys as resource } from "../../resources/api-keys";

type SearchValues = { api_key_id?: string };

export function ApiKeysPage() {
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  // Page and search are Refine's, kept in the URL; a changed search starts at page 1.
  const { tableProps, tableQuery, result, currentPage, setCurrentPage, filters, searchFormProps } =
    useListTable<PersonalApiKey, SearchValues>({
      resource: resource.name,
      pageSize: API_KEY_PAGE_SIZE,
      onSearch: (values) => [searchFilter("api_key_id", values.api_key_id)],
    });

  const createModal = useModalForm<CreatedApiKey, HttpError, CreateApiKeyValues>({
    resource: resource.name,
    action: "create",
    redirect: false,
    successNotification: false,
    errorNotification: (error) => ({
      type: "error",
      key: "api-key-failure",
      // Refine's antd notifications show `description` as the heading, `message` below it.
      description: "Failed to create API key",
      message: apiKeyErrorMessage("create", error as never),
    }),
    onMutationSuccess: (response) => setCreated(response.data),
  });

  const { mutate: deleteKey, mutation: deletion } = useDelete();
  const confirmDelete = () => {
    if (!deleting) return;
    deleteKey(
      {
        resource: resource.name,
        id: deleting,
        successNotification: false,
        errorNotification: (error) => ({
          type: "error",
          key: "api-key-failure",
          message: apiKeyErrorMessage("delete", error as never),
        }),
      },
      { onSettled: () => setDeleting(null) },
    );
  };

  return (
    <PageList
      resource={resource.name}
      title="Personal API Keys"
      headerButtons={
        <RefreshAndCreate
          query={tableQuery}
          resource={resource.name}
          icon={<KeyOutlined />}
          label="Create API Key"
          onCreate={() => createModal.show()}
        />
      }
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      <Card>
        {/* The search applies 300 ms after the last keystroke. */}
        <FilterForm<SearchValues>
          searchFormProps={searchFormProps}
          initialValues={{ api_key_id: filterText(filters, "api_key_id") }}
          label="API key search"
          delayMs={API_KEY_SEARCH_DEBOUNCE_MS}
          style={{ marginBottom: 16 }}
        >
          <SearchField name="api_key_id" label="Search by Key ID" placeholder="Search by Key ID" />
        </FilterForm>
        <ApiKeysTable
          // Refreshing and paging show the spinner too, not only the first load.
          tableProps={{ ...tableProps, loading: tableQuery.isFetching }}
          query={tableQuery}
          errorText={(error) => apiKeyErrorMessage("list", error as never)}
          currentPage={currentPage}
          total={result.total ?? 0}
          onPageChange={setCurrentPage}
          onDelete={setDeleting}
        />
      </Card>
      <CanAccess resource={resource.name} action="create">
        <CreateApiKeyDialog modal={createModal} />
      </CanAccess>
      <NewApiKeyDialog created={created} onClose={() => setCreated(null)} />
      <DeleteApiKeyDialog
        apiKeyId={deleting}
        pending={deletion.isPending}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(null)}
      />
    </PageList>
  );
}
