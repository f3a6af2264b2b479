// "/account/api-keys": the signed-in user's personal API keys, kept by the identity service. The
// api-keys resource names the identity data provider and its calls; this page passes no URLs.
import { KeyOutlined } from "@ant-design/icons";
import { useModalForm } from "@refinedev/antd";
import { CanAccess, type HttpError } from "@refinedev/core";
import { Typography } from "antd";
import { useState } from "react";
import { ApiKeysTable } from "../../components/api-keys/api-keys-table";
import { CreateApiKeyDialog, type CreateApiKeyValues } from "../../components/api-keys/create-api-key-dialog";
import { NewApiKeyDialog } from "../../components/api-keys/new-api-key-dialog";
import { DangerConfirmDialog } from "../../components/danger-confirm-dialog";
import { ListPage } from "../../components/layout/list-page";
import { FilterForm } from "../../components/table/filter-form";
import { SearchField } from "../../components/table/search-field";
import { useListTable } from "../../components/table/use-list-table";
import { useConfirmedDelete } from "../../hooks/use-confirmed-delete";
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

  const deletion = useConfirmedDelete<string>({
    resource: resource.name,
    id: (apiKeyId) => apiKeyId,
    errorNotification: (error) => ({
      type: "error",
      key: "api-key-failure",
      message: apiKeyErrorMessage("delete", error as never),
    }),
  });

  return (
    <ListPage
      resource={resource.name}
      title="Personal API Keys"
      query={tableQuery}
      create={{ icon: <KeyOutlined />, label: "Create API Key", onCreate: () => createModal.show() }}
      modals={
        <>
          <CanAccess resource={resource.name} action="create">
            <CreateApiKeyDialog modal={createModal} />
          </CanAccess>
          <NewApiKeyDialog created={created} onClose={() => setCreated(null)} />
          <DangerConfirmDialog title="Delete API Key" okText="Delete" {...deletion.dialog}>
            <Typography.Paragraph>
              Delete the API key <Typography.Text code>{deletion.target}</Typography.Text>? Anything using it
              stops working at once. This cannot be undone.
            </Typography.Paragraph>
          </DangerConfirmDialog>
        </>
      }
    >
      {/* The search applies 300 ms after the last keystroke. */}
      <FilterForm<SearchValues>
        searchFormProps={searchFormProps}
        initialValues={{ api_key_id: filterText(filters, "api_key_id") }}
        label="API key search"
        delayMs={API_KEY_SEARCH_DEBOUNCE_MS}
      >
        <SearchField name="api_key_id" label="Search by Key ID" placeholder="Search by Key ID" />
      </FilterForm>
      <ApiKeysTable
        // Refreshing and paging show the spinner too, not only the first load.
        list={{ tableProps: { ...tableProps, loading: tableQuery.isFetching }, tableQuery }}
        errorText={(error) => apiKeyErrorMessage("list", error as never)}
        currentPage={currentPage}
        total={result.total ?? 0}
        onPageChange={setCurrentPage}
        onDelete={deletion.ask}
      />
    </ListPage>
  );
}
