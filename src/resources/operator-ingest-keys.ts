// The operator area's ingestion keys (/v1/operator/ingest-keys): the keys the platform's eval
// services send usage with, for all organizations or one. A new key's token is in the creation's
// answer only; a key is revoked (a POST; revoked keys stay listed), never deleted. Provider
// operators only.
import { CloudUploadOutlined } from "@ant-design/icons";
import { createElement } from "react";
import { OPERATOR_GROUP } from "./operator-organizations";
import { type ConsoleResource, OPERATORS } from "./types";

export const operatorIngestKeys: ConsoleResource = {
  name: "operator-ingest-keys",
  list: "/operator/ingest-keys",
  meta: {
    label: "Ingestion Keys",
    icon: createElement(CloudUploadOutlined),
    siderGroup: OPERATOR_GROUP,
    api: {
      path: "/v1/operator/ingest-keys",
      idField: "ingest_key_uuid",
      calls: { delete: { method: "POST", path: "/v1/operator/ingest-keys/{id}/revoke" } },
    },
    access: { list: OPERATORS, create: OPERATORS, delete: OPERATORS },
  },
  pages: {
    list: () => import("../pages/operator/ingest-keys-list-page").then((m) => m.OperatorIngestKeysListPage),
  },
};
