// Choosing an organization in the operator area's forms and filters: the organizations the server
// finds for the typed text (name or slug), a page at a time, through Refine's useSelect. `extra`
// options (the global price list, all organizations) come first.
import { useSelect } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Select, type SelectProps } from "antd";
import type { OperatorOrganization } from "../../lib/operator";
import { operatorOrganizations } from "../../resources/operator-organizations";

type Props = Omit<SelectProps, "options" | "onSearch" | "filterOption" | "showSearch"> & {
  extra?: { value: string; label: string }[];
  /** Load the organizations only once the control is needed (its dialog is open). */
  enabled?: boolean;
};

export function OrganizationSelect({ extra = [], enabled = true, ...props }: Props) {
  // A chosen organization (e.g. from the URL) may not be on the first page: fetch it for its name.
  const chosen =
    typeof props.value === "string" && !extra.some((e) => e.value === props.value) ? props.value : undefined;
  const { selectProps } = useSelect<OperatorOrganization, HttpError>({
    resource: operatorOrganizations.name,
    optionLabel: "name",
    optionValue: "organization_uuid",
    pagination: { currentPage: 1, pageSize: 20, mode: "server" },
    debounce: 300,
    defaultValue: chosen,
    errorNotification: false,
    queryOptions: { enabled },
  });
  return (
    <Select
      {...props}
      showSearch
      filterOption={false}
      onSearch={selectProps.onSearch}
      loading={selectProps.loading}
      notFoundContent={selectProps.loading ? "Loading..." : "No organizations found"}
      options={[...extra, ...(selectProps.options ?? [])]}
    />
  );
}
