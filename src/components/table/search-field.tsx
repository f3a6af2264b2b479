// The text search of a filter form: one field of Refine's search form, named for the filter it sets.
import { SearchOutlined } from "@ant-design/icons";
import { Form, Input } from "antd";

type Props = { name: string; label: string; placeholder: string };

export function SearchField({ name, label, placeholder }: Props) {
  return (
    <Form.Item name={name} style={{ flex: "1 1 240px", maxWidth: 360 }}>
      <Input
        allowClear
        aria-label={label}
        placeholder={placeholder}
        prefix={<SearchOutlined aria-hidden />}
      />
    </Form.Item>
  );
}
