// The signed-in user's account facts (from the current user; no data calls of its own).
import { SettingOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { type ConsoleResource, EVERYONE } from "./types";

export const accountSettings: ConsoleResource = {
  name: "account-settings",
  list: "/account/settings",
  meta: { label: "Account Settings", icon: createElement(SettingOutlined), access: { list: EVERYONE } },
  pages: {
    list: () => import("../pages/account/account-settings-page").then((m) => m.AccountSettingsPage),
  },
};
