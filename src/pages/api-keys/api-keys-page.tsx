// "/account/api-keys": the signed-in user's personal API keys, kept by the identity service.
import { KeyOutlined, ReloadOutlined } from "@ant-design/icons";
import { useModalForm } from "@refinedev/antd";
import { type HttpError, useDelete, useTable } from "@refinedev/core";
import { Alert, Button, Card, Flex } from "antd";
import { useEffect, useMemo, useState } from "react";
import { ApiKeysTable } from "../../components/api-keys/api-keys-table";
import { CreateApiKeyDialog, type CreateApiKeyValues } from "../../components/api-keys/create-api-key-dialog";
import { DeleteApiKeyDialog } from "../../components/api-keys/delete-api-key-dialog";
import { NewApiKeyDialog } from "../../components/api-keys/new-api-key-dialog";
import { PageTitle } from "../../components/page-title";
import { SearchBox } from "../../components/search-box";
import {
  API_KEY_PAGE_SIZE,
  API_KEY_SEARCH_DEBOUNCE_MS,
  apiKeyErrorMessage,
  type CreatedApiKey,
  type KeyListState,
  type PersonalApiKey,
  searchFilters,
  withSearch,
} from "../../lib/api-keys";
import { useServices } from "../../providers/services";

export function ApiKeysPage() {
  const { config } = useServices();
  const meta = useMemo(() => ({ identityUrl: config.authUrl }), [config.authUrl]);
  // What the table shows: the applied search and the zero-based page.
  const [list, setList] = useState<KeyListState>({ search: "", page: 0 });
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const { tableQuery, result, setCurrentPage, setFilters } = useTable<PersonalApiKey, HttpError>({
    resource: "api-keys",
    meta,
    syncWithLocation: false,
    pagination: { currentPage: 1, pageSize: API_KEY_PAGE_SIZE, mode: "server" },
    filters: { mode: "server", initial: searchFilters("") },
    sorters: { mode: "off" },
    errorNotification: false,
  });

  useEffect(() => {
    setFilters(searchFilters(list.search), "replace");
    setCurrentPage(list.page + 1);
  }, [list, setFilters, setCurrentPage]);

  const createModal = useModalForm<CreatedApiKey, HttpError, CreateApiKeyValues>({
    resource: "api-keys",
    action: "create",
    meta,
    redirect: false,
    warnWhenUnsavedChanges: false,
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
        resource: "api-keys",
        id: deleting,
        meta,
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

  const total = result.total ?? 0;
  return (
    <>
      <PageTitle
        title="Personal API Keys"
        extra={
          <Flex gap={8} wrap>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => tableQuery.refetch()}
              loading={tableQuery.isFetching}
            >
              Refresh
            </Button>
            <Button type="primary" icon={<KeyOutlined />} onClick={() => createModal.show()}>
              Create API Key
            </Button>
          </Flex>
        }
      />
      <Card>
        {/* The search applies 300 ms after the last keystroke; a changed search starts at page 0. */}
        <SearchBox
          label="Search by Key ID"
          placeholder="Search by Key ID"
          delayMs={API_KEY_SEARCH_DEBOUNCE_MS}
          onSearch={(value) => setList((current) => withSearch(current, value))}
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
          keys={result.data}
          loading={tableQuery.isFetching}
          pageIndex={list.page}
          total={total}
          onPageChange={(page) => setList((current) => ({ ...current, page }))}
          onDelete={setDeleting}
        />
      </Card>
      <CreateApiKeyDialog modal={createModal} />
      <NewApiKeyDialog created={created} onClose={() => setCreated(null)} />
      <DeleteApiKeyDialog
        apiKeyId={deleting}
        pending={deletion.isPending}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(null)}
      />
    </>
  );
}
