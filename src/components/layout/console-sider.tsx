// ThemedLayout's Sider: the spec's widths (16rem, 3rem collapsed, an 18rem drawer below 768 px)
// around the sider content. Collapsed and open come from ThemedLayout's context; the header's
// trigger and Ctrl/Cmd+B change them. ThemedLayout also calls this function directly, to learn
// whether there is a sider: its hooks run there too, so they only read (SiderNav holds the state).
import { useThemedLayoutContext } from "@refinedev/antd";
import { Drawer, Layout, theme } from "antd";
import { useIsMobile } from "../../hooks/use-is-mobile";
import { useServices } from "../../providers/services";
import { SiderNav } from "./sider-nav";

const SIDER_WIDTH = "16rem";
const SIDER_COLLAPSED_WIDTH = "3rem";
const MOBILE_SIDER_WIDTH = "18rem";

export function ConsoleSider() {
  const { siderCollapsed, mobileSiderOpen, setMobileSiderOpen } = useThemedLayoutContext();
  const isMobile = useIsMobile();
  const { config } = useServices();
  const { token } = theme.useToken();

  if (isMobile) {
    return (
      <Drawer
        placement="left"
        width={MOBILE_SIDER_WIDTH}
        open={mobileSiderOpen}
        onClose={() => setMobileSiderOpen(false)}
        title={config.productName}
        styles={{ body: { padding: 0 } }}
      >
        <SiderNav collapsed={false} closeDrawer={() => setMobileSiderOpen(false)} />
      </Drawer>
    );
  }
  return (
    <Layout.Sider
      collapsible
      collapsed={siderCollapsed}
      trigger={null}
      width={SIDER_WIDTH}
      collapsedWidth={SIDER_COLLAPSED_WIDTH}
      data-testid="app-sider"
      style={{
        position: "sticky",
        top: 0,
        height: "100vh",
        background: token.colorBgContainer,
        borderInlineEnd: `1px solid ${token.colorBorderSecondary}`,
      }}
    >
      <SiderNav collapsed={siderCollapsed} />
    </Layout.Sider>
  );
}
