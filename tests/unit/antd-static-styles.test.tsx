// The build's static antd stylesheet (scripts/extract-antd-styles.tsx): the styles the console's
// list pages and dialogs ask for at run time are in it, under the cache paths the browser looks
// them up by, so the first render computes none of them.
import { Button, Card, Form, Input, Menu, Modal, Select, Table, Tag, Typography } from "antd";
import { describe, expect, it } from "vitest";
import { antdStylesFile } from "../../scripts/antd-static-styles";
import { extractAntdStyles } from "../../scripts/extract-antd-styles";
import { declaredPaths, pathsOf } from "./support/antd-style-paths";

describe("antd's static stylesheet", () => {
  const css = extractAntdStyles();
  const declared = declaredPaths(css);

  it("holds the styles of a list page and a dialog, under the paths the run time asks for", () => {
    const page = pathsOf(
      <>
        <Menu items={[{ key: "a", label: "Users" }]} />
        <Card title="Members">
          <Input.Search placeholder="Search by email" />
          <Table
            rowKey="id"
            dataSource={[{ id: 1, email: "a@acme.test" }]}
            columns={[{ dataIndex: "email", title: "Email", sorter: true }]}
            pagination={{ total: 30 }}
          />
          <Tag>Member</Tag>
          <Typography.Text type="secondary">6 minutes ago</Typography.Text>
        </Card>
        <Modal open={false} title="Invite user">
          <Form layout="vertical">
            <Form.Item label="Role" required>
              <Select options={[{ value: "member" }]} />
            </Form.Item>
          </Form>
          <Button type="primary">Send invitation</Button>
        </Modal>
      </>,
    );
    expect(page.length).toBeGreaterThan(10);
    expect(page.filter((path) => !declared.has(path))).toEqual([]);
  });

  it("has no hash class in its selectors, so a development server's class names match too", () => {
    expect(css).toContain(".ant-table");
    expect(css).not.toMatch(/\.css-[a-z0-9]+/);
  });

  it("is named for its content", () => {
    expect(antdStylesFile(css)).toMatch(/^assets\/antd-[\w-]{8}\.css$/);
    expect(antdStylesFile(css)).toBe(antdStylesFile(css));
    expect(antdStylesFile(`${css} `)).not.toBe(antdStylesFile(css));
  });
});
