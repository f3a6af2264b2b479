// A console page's list frame: the resource's List with the page title as a level-2 heading and no
// breadcrumb, so every list page reads the same.
import { List, type ListProps } from "@refinedev/antd";
import { Typography } from "antd";

export function PageList({ title, ...props }: Omit<ListProps, "title" | "breadcrumb"> & { title: string }) {
  return (
    <List
      {...props}
      breadcrumb={false}
      title={
        <Typography.Title level={2} style={{ margin: 0 }}>
          {title}
        </Typography.Title>
      }
    />
  );
}
