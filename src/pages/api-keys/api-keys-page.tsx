// "/account/api-keys": the signed-in user's personal API keys, kept by the identity service. The
// api-keys resource names the identity data provider and its calls; this page passes no URLs.
import { KeyOutlined } from "@ant-design/icons";
import { CreateButton, useModalForm, useTable } from "@refinedev/antd";
import { CanAccess, type HttpError, useDelete } from "@refinedev/core";
import { Alert, Card, Flex } from "antd";
import { useState } from "react";
import { ApiKeysTable } from "../../components/api-keys/api-keys-table";
import { CreateApiKeyDialog, type CreateApiKeyValues } from "../../components/api-keys/create-api-key-dialog";
import { DeleteApiKeyDialog } from "../../components/api-keys/delete-api-key-dialog";
import { NewApiKeyDialog } from "../../components/api-keys/new-api-key-dialog";
import { PageList } from "../../components/layout/page-list";
import { RefetchButton } from "../../components/refetch-button";
import { SearchBox } from "../../components/search-box";
import {
  API_KEY_PAGE_SIZE,
  API_KEY_SEARCH_DEBOUNCE_MS,
  apiKeyErrorMessage,
  type CreatedApiKey,
  type PersonalApiKey,
  searchFilters,
} from "../../lib/api-keys";
import { apiKeys as resource } from "../../resources/api-keys";

export function ApiKeysPage() {
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const { tableProps, tableQuery, result, currentPage, setCurrentPage, filters, setFilters } = useTable<
    PersonalApiKey,
    HttpError
  >({
    resource: resource.name,
    syncWithLocation: false,
    pagination: { currentPage: 1, pageSize: API_KEY_PAGE_SIZE, mode: "server" },
    filters: { mode: "server", initial: searchFilters("") },
    sorters: { mode: "off" },
    errorNotification: false,
  });
  const search = (filters.find((f) => "field" in f && f.field === "api_key_id")?.value as string) ?? "";

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
        <Flex gap={8} wrap>
          <RefetchButton query={tableQuery} />
          <CreateButton
            resource={resource.name}
            type="primary"
            icon={<KeyOutlined />}
            onClick={() => createModal.show()}
          >
            Create API Key
          </CreateButton>
        </Flex>
      }
      headerProps={{ style: { padding: 0, marginBottom: 8 } }}
    >
      <Card>
        {/* The search applies 300 ms after the last keystroke; a changed search starts at page 1. */}
        <SearchBox
          label="Search by Key ID"
          placeholder="Search by Key ID"
          delayMs={API_KEY_SEARCH_DEBOUNCE_MS}
          onSearch={(value) => {
            if (value.trim() === search) return;
            setFilters(searchFilters(value), "replace");
            setCurrentPage(1);
          }}
        />
        {tableQuery.isError ? (
          <Alert
            type="error"
            showIcon
            style={{ marginBottom: 16 }}
            message={apiKeyErrorMessage("list", tableQuery.error as never)}
          />
        ) : null}
        <ApiKeysTable
          // Refreshing and paging show the spinner too, not only the first load.
          tableProps={{ ...tableProps, loading: tableQuery.isFetching }}
          pageIndex={currentPage - 1}
          total={result.total ?? 0}
          onPageChange={(pageIndex) => setCurrentPage(pageIndex + 1)}
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
