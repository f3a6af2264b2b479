// A record page's frame (one workspace, one eval run): the resource's Show with the record's name
// as a level-2 heading, no breadcrumb, back arrow or header buttons (the page puts its own way back
// above it), and a flat body whose cards stack 16px apart, so record pages read the same.
import { Show, type ShowProps } from "@refinedev/antd";
import { Typography } from "antd";
import type { ReactNode } from "react";

type Props = Omit<
  ShowProps,
  "title" | "breadcrumb" | "goBack" | "headerButtons" | "headerProps" | "contentProps"
> & { title: ReactNode };

export function PageShow({ title, ...props }: Props) {
  return (
    <Show
      {...props}
      breadcrumb={false}
      goBack={false}
      title={
        <Typography.Title level={2} style={{ margin: 0 }}>
          {title}
        </Typography.Title>
      }
      headerButtons={() => null}
      headerProps={{ style: { padding: 0 } }}
      contentProps={{
        variant: "borderless",
        style: { background: "transparent" },
        styles: { body: { padding: 0, display: "flex", flexDirection: "column", gap: 16 } },
      }}
    />
  );
}
