// The Audit Log's filters above the table: target and a range of days, as Refine's search form
// (the table's `searchFormProps`); actor and action are their columns' filters. Applied on submit
// (Enter in any field, or the Apply button), so typing does not fire a request per key; the form
// opens with the filters the URL carries. Reset clears every filter, the columns' too.
import type { FormProps } from "antd";
import { Button, DatePicker, Flex, Form, Input, Select } from "antd";
import dayjs, { type Dayjs } from "dayjs";
import { type AuditFilterValues, TARGET_TYPE_OPTIONS } from "../../lib/audit-log";

export type AuditFormValues = {
  target_type?: string;
  target_id?: string;
  days?: [Dayjs | null, Dayjs | null];
};

const day = (d: Dayjs | null | undefined) => (d ? d.format("YYYY-MM-DD") : undefined);

/** The form's values as the page's filter values (days as YYYY-MM-DD). */
export function auditFormToValues(v: AuditFormValues): AuditFilterValues {
  return {
    target_type: v.target_type,
    target_id: v.target_id,
    from: day(v.days?.[0]),
    to: day(v.days?.[1]),
  };
}

function formValuesOf(v: AuditFilterValues): AuditFormValues {
  const { from, to, target_type, target_id } = v;
  return {
    target_type,
    target_id,
    days: from || to ? [from ? dayjs(from) : null, to ? dayjs(to) : null] : undefined,
  };
}

const EMPTY = {
  target_type: undefined,
  target_id: undefined,
  days: undefined,
};

type Props = {
  searchFormProps: FormProps<AuditFormValues>;
  applied: AuditFilterValues;
  /** Clears every filter of the table (the form's and the columns'). */
  onReset: () => void;
};

export function AuditFilterBar({ searchFormProps, applied, onReset }: Props) {
  const form = searchFormProps.form;
  return (
    <Form<AuditFormValues>
      {...searchFormProps}
      initialValues={formValuesOf(applied)}
      layout="vertical"
      aria-label="Audit log filters"
    >
      <Flex wrap gap={12} align="end">
        <Form.Item name="target_type" label="Target type" style={{ marginBottom: 0, minWidth: 180 }}>
          <Select allowClear placeholder="Any target" options={TARGET_TYPE_OPTIONS} />
        </Form.Item>
        <Form.Item name="target_id" label="Target ID" style={{ marginBottom: 0, minWidth: 200 }}>
          <Input placeholder="Workspace, user or key ID" allowClear />
        </Form.Item>
        <Form.Item name="days" label="Dates (UTC)" style={{ marginBottom: 0 }}>
          <DatePicker.RangePicker allowEmpty={[true, true]} />
        </Form.Item>
        <Flex gap={8}>
          <Button type="primary" htmlType="submit">
            Apply
          </Button>
          <Button
            onClick={() => {
              // Empty, not the starting values: those may be filters the URL opened with.
              form?.setFieldsValue(EMPTY);
              onReset();
            }}
          >
            Reset
          </Button>
        </Flex>
      </Flex>
    </Form>
  );
}
