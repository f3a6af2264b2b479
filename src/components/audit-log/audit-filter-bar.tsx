// The Audit Log's filters: actor, actions, target and a range of days. Applied on submit (Enter
// in any field, or the Apply button), so typing does not fire a request per key.
import { Button, DatePicker, Flex, Form, Input, Select } from "antd";
import type { Dayjs } from "dayjs";
import { ACTION_OPTIONS, type AuditFilterValues, TARGET_TYPE_OPTIONS } from "../../lib/audit-log";

type FormValues = {
  actor?: string;
  action?: string[];
  target_type?: string;
  target_id?: string;
  days?: [Dayjs | null, Dayjs | null] | null;
};

type Props = { onApply: (values: AuditFilterValues) => void };

const day = (d: Dayjs | null | undefined) => (d ? d.format("YYYY-MM-DD") : undefined);

export function AuditFilterBar({ onApply }: Props) {
  const [form] = Form.useForm<FormValues>();
  const apply = (v: FormValues) =>
    onApply({
      actor: v.actor,
      action: v.action,
      target_type: v.target_type,
      target_id: v.target_id,
      from: day(v.days?.[0]),
      to: day(v.days?.[1]),
    });
  return (
    <Form<FormValues> form={form} layout="vertical" onFinish={apply} aria-label="Audit log filters">
      <Flex wrap gap={12} align="end">
        <Form.Item name="actor" label="Actor" style={{ marginBottom: 0, minWidth: 200 }}>
          <Input placeholder="Email or user ID" allowClear />
        </Form.Item>
        <Form.Item name="action" label="Action" style={{ marginBottom: 0, minWidth: 240 }}>
          <Select
            mode="multiple"
            allowClear
            placeholder="Any action"
            options={ACTION_OPTIONS}
            optionFilterProp="label"
            maxTagCount={2}
          />
        </Form.Item>
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
              form.resetFields();
              apply({});
            }}
          >
            Reset
          </Button>
        </Flex>
      </Flex>
    </Form>
  );
}
