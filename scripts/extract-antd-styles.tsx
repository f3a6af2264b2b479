// The console's Ant Design styles as one static CSS file, made at build time (antd's "whole
// export" of styles, https://ant.design/docs/react/server-side-rendering): the components the
// console uses are rendered once on the server in the console's own theme (its ThemeShell), and
// @ant-design/cssinjs's extractStyle writes out every style they registered, followed by a map of
// their cache paths. In the browser, cssinjs reads that map from the stylesheet before a component
// first asks for its style, finds the style already there and skips computing and injecting it,
// which is what the console's first render spent most of its time on. A component left out here
// still gets its style computed at run time, as before: the list only decides what is precomputed.
//
// Run by the build (scripts/antd-static-styles.ts) as `tsx scripts/extract-antd-styles.tsx`; prints
// the CSS. NODE_ENV must be "production", as in the build, for the class names to be the same.
import { createCache, extractStyle, StyleProvider } from "@ant-design/cssinjs";
import { PageHeader } from "@refinedev/antd";
import {
  Alert,
  AutoComplete,
  Avatar,
  Badge,
  Breadcrumb,
  Button,
  Card,
  Checkbox,
  Col,
  DatePicker,
  Descriptions,
  Divider,
  Drawer,
  Dropdown,
  Empty,
  Flex,
  Form,
  Input,
  InputNumber,
  Layout,
  List,
  Menu,
  Modal,
  message,
  notification,
  Pagination,
  Popconfirm,
  Popover,
  Progress,
  Radio,
  Result,
  Row,
  Segmented,
  Select,
  Skeleton,
  Space,
  Spin,
  Statistic,
  Switch,
  Table,
  Tabs,
  Tag,
  Tooltip,
  Typography,
} from "antd";
import { renderToString } from "react-dom/server";
import { ThemeShell } from "../src/components/theme-shell";

// antd's own panels of its pop-up components (what antd renders in its docs and its style
// extraction): a tooltip or a notification is only on the page once shown, and its panel
// registers the same styles inline. (The panels of Modal, Select and DatePicker wrap themselves in
// a theme of their own, so their styles would be another theme's: those three register their
// styles when rendered closed.)
type Panel<P = object> = { _InternalPanelDoNotUseOrYouWillBeFired: React.ComponentType<P> };
const panel = <P,>(component: unknown) => (component as Panel<P>)._InternalPanelDoNotUseOrYouWillBeFired;
const TooltipPanel = panel<{ title: string }>(Tooltip);
const PopoverPanel = panel<{ title?: string; content: string }>(Popover);
const PopconfirmPanel = panel<{ title: string }>(Popconfirm);
const DrawerPanel = panel<{ title?: string; children?: React.ReactNode }>(Drawer);
const NotificationPanel = panel<{ message: string; type?: string }>(notification);
const MessagePanel = panel<{ content: string; type?: string }>(message);

const rows = [{ key: 1, name: "a", cost: 1 }];

/** What the console's pages, its shell and Refine's views render, with the variants they use. */
function Catalog() {
  return (
    <>
      <Layout>
        <Layout.Sider collapsible>
          <Menu items={[{ key: "a", label: "a", children: [{ key: "b", label: "b" }] }]} mode="inline" />
        </Layout.Sider>
        <Layout>
          <Layout.Header />
          <Layout.Content />
          <Layout.Footer />
        </Layout>
      </Layout>
      <Menu items={[{ key: "a", label: "a" }]} mode="horizontal" />
      <PageHeader title="a" breadcrumb={{ items: [{ title: "a" }] }} extra={<Button>a</Button>} />
      <Breadcrumb items={[{ title: "a" }, { title: "b" }]} />
      <Row gutter={8}>
        <Col span={12} />
      </Row>
      <Flex gap="small" />
      <Space.Compact>
        <Button type="primary">a</Button>
        <Button danger>b</Button>
        <Input />
      </Space.Compact>
      <Space wrap>
        <Button type="link" size="small" loading>
          a
        </Button>
      </Space>
      <Divider />
      <Card title="a" extra="b" loading>
        <Card.Meta title="a" />
      </Card>
      <Card title="a" size="small" tabList={[{ key: "a", tab: "a" }]} />
      <Typography.Title level={4}>a</Typography.Title>
      <Typography.Text type="secondary" copyable>
        a
      </Typography.Text>
      <Typography.Paragraph ellipsis>a</Typography.Paragraph>
      <Typography.Link>a</Typography.Link>
      <Alert message="a" type="warning" showIcon closable />
      <Badge count={1} status="success" text="a" />
      <Badge.Ribbon text="a" />
      <Tag color="blue">a</Tag>
      <Tag color="success">a</Tag>
      <Avatar>a</Avatar>
      <Progress percent={50} />
      <Progress type="circle" percent={50} />
      <Statistic title="a" value={1} />
      <Descriptions bordered items={[{ key: "a", label: "a", children: "a" }]} />
      <Result status="403" title="a" />
      <Empty />
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
      <Skeleton active />
      <Skeleton.Button active />
      <Skeleton.Input active />
      <Spin />
      <List dataSource={["a"]} renderItem={(item) => <List.Item>{item}</List.Item>} />
      <Tabs items={[{ key: "a", label: "a", children: "a" }]} />
      <Segmented options={["a", "b"]} />
      <Form layout="vertical">
        <Form.Item label="a" name="a" rules={[{ required: true }]} help="a" validateStatus="error">
          <Input allowClear />
        </Form.Item>
        <Form.Item label="b" name="b" extra="b" hasFeedback>
          <Input.Password />
        </Form.Item>
        <Form.Item name="c">
          <Input.TextArea showCount maxLength={10} />
        </Form.Item>
      </Form>
      <Form layout="inline">
        <Form.Item label="a">
          <Input.Search />
        </Form.Item>
      </Form>
      <InputNumber />
      <AutoComplete options={[{ value: "a" }]} />
      <Select options={[{ value: "a" }]} />
      <Select mode="multiple" options={[{ value: "a" }]} value={["a"]} />
      <DatePicker />
      <DatePicker.RangePicker />
      <Checkbox>a</Checkbox>
      <Checkbox.Group options={["a"]} />
      <Radio.Group options={["a"]} optionType="button" />
      <Radio>a</Radio>
      <Switch />
      <Dropdown menu={{ items: [{ key: "a", label: "a" }] }}>
        <span />
      </Dropdown>
      <Pagination total={100} showSizeChanger showQuickJumper />
      <Pagination simple total={100} />
      <Table
        rowSelection={{}}
        size="small"
        dataSource={rows}
        columns={[
          { dataIndex: "name", title: "a", sorter: true, filters: [{ text: "a", value: "a" }] },
          { dataIndex: "cost", title: "b", align: "right", ellipsis: true, fixed: "right" },
        ]}
        expandable={{ expandedRowRender: () => "a" }}
        pagination={{ total: 100, showSizeChanger: true }}
        scroll={{ x: 800 }}
      />
      <Table dataSource={[]} columns={[{ dataIndex: "a", title: "a" }]} loading />
      <Modal title="a" />
      <DrawerPanel title="a">a</DrawerPanel>
      <TooltipPanel title="a" />
      <PopoverPanel title="a" content="a" />
      <PopconfirmPanel title="a" />
      <NotificationPanel message="a" type="success" />
      <MessagePanel content="a" type="success" />
    </>
  );
}

/** The CSS of the catalog in the console's theme, with the cache-path map at its end. */
export function extractAntdStyles(): string {
  const cache = createCache();
  renderToString(
    <StyleProvider cache={cache}>
      <ThemeShell>
        <Catalog />
      </ThemeShell>
    </StyleProvider>,
  );
  return extractStyle(cache, { plain: true });
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  if (process.env.NODE_ENV !== "production") throw new Error("NODE_ENV must be production");
  process.stdout.write(extractAntdStyles());
}
