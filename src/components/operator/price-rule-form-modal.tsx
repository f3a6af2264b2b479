// "Set price": a new price rule for the global price list or one organization. The dimensions it
// leaves empty match anything (operation, eval type, modality, metric); the unit price is an exact
// USD decimal; it is in force from `valid_from` (now when empty, and it may be in the past). The
// rule open for exactly the same dimensions ends where the new one starts. When other rules outrank
// the new one for some of the open cycle's events it fits, a warning that stays says which, why and
// how many (docs/pricing.md, "When another rule wins").
import { type UseModalFormReturnType, useModalForm } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { App, AutoComplete, Col, DatePicker, Form, Input, Row, Select, Typography } from "antd";
import { type ShadowJson, shadowSentence } from "../../../contract/price-shadows";
import {
  EVAL_TYPE_SUGGESTIONS,
  GLOBAL_SCOPE,
  MODALITY_SUGGESTIONS,
  OPERATION_SUGGESTIONS,
  type PriceRule,
  type PriceRuleFormValues,
  priceRuleBody,
  RULE_METRIC_LABELS,
  USD_PATTERN,
} from "../../lib/operator";
import { operatorPriceRules } from "../../resources/operator-price-rules";
import { OperatorFormModal, usdRules } from "./operator-form-modal";
import { OrganizationSelect } from "./organization-select";

/** The answer of "Set price": the new rule, and the rules that outrank it for some events. */
type SetPriceAnswer = PriceRule & { shadowed_by?: ShadowJson[] };

export type PriceRuleModal = UseModalFormReturnType<
  SetPriceAnswer,
  HttpError,
  ReturnType<typeof priceRuleBody>
>;

const shadowsOf = (data: SetPriceAnswer | undefined) => data?.shadowed_by ?? [];

/**
 * The "Set price" dialog's form: creates a rule, stays on the page, says "Price set", or, when
 * other rules take some of its events, warns until dismissed.
 */
export function usePriceRuleModal(): PriceRuleModal {
  const { notification } = App.useApp();
  return useModalForm<SetPriceAnswer, HttpError, ReturnType<typeof priceRuleBody>>({
    resource: operatorPriceRules.name,
    action: "create",
    redirect: false,
    errorNotification: false,
    successNotification: (res) =>
      shadowsOf(res?.data).length ? false : { type: "success", key: "price-rule-set", message: "Price set" },
    onMutationSuccess: (res) => {
      const shadows = shadowsOf(res.data);
      if (!shadows.length) return;
      notification.warning({
        key: "price-rule-set",
        message: "Price set, but other rules price some of its events",
        description: (
          <ul style={{ margin: 0, paddingInlineStart: 18 }} data-testid="price-shadows">
            {shadows.map((s) => (
              <li key={s.price_rule_uuid}>{shadowSentence(s)}</li>
            ))}
          </ul>
        ),
        duration: 0,
      });
    },
  });
}

type Props = {
  modal: PriceRuleModal;
  /** The organization page's dialog sets that organization's prices only. */
  fixedOrganization?: { organization_uuid: string; name: string };
};

const suggestions = (values: string[]) => values.map((value) => ({ value }));

/** The dimensions typed in with suggestions; empty matches any. */
const DIMENSIONS = [
  {
    name: "operation",
    id: "operation",
    label: "Operation",
    placeholder: "Any operation",
    options: suggestions(OPERATION_SUGGESTIONS),
  },
  {
    name: "eval_type",
    id: "eval-type",
    label: "Eval type",
    placeholder: "Any eval type",
    options: EVAL_TYPE_SUGGESTIONS,
  },
  {
    name: "modality",
    id: "modality",
    label: "Modality",
    placeholder: "Any modality",
    options: suggestions(MODALITY_SUGGESTIONS),
  },
] as const;

export function PriceRuleFormModal({ modal, fixedOrganization }: Props) {
  const open = modal.modalProps.open === true;
  return (
    <OperatorFormModal
      modal={modal}
      name="price-rule"
      title="Set price"
      okText="Set price"
      toBody={(values: PriceRuleFormValues) =>
        priceRuleBody(fixedOrganization ? { ...values, scope: fixedOrganization.organization_uuid } : values)
      }
      initialValues={{ scope: GLOBAL_SCOPE }}
      intro={
        <Typography.Paragraph type="secondary">
          Leave a dimension empty to match any value. The rule open for exactly the same dimensions ends when
          this one starts.
        </Typography.Paragraph>
      }
    >
      {fixedOrganization ? (
        <Form.Item label="Price list">
          <Typography.Text strong>{fixedOrganization.name}</Typography.Text>
        </Form.Item>
      ) : (
        <Form.Item
          label="Price list"
          name="scope"
          htmlFor="price-rule-scope"
          rules={[{ required: true, message: "Choose the global price list or an organization." }]}
        >
          <OrganizationSelect
            id="price-rule-scope"
            enabled={open}
            extra={[{ value: GLOBAL_SCOPE, label: "Global (every organization)" }]}
          />
        </Form.Item>
      )}
      <Row gutter={16}>
        {DIMENSIONS.map((d) => (
          <Col key={d.name} xs={24} sm={12}>
            <Form.Item label={d.label} name={d.name} htmlFor={`price-rule-${d.id}`}>
              <AutoComplete
                id={`price-rule-${d.id}`}
                options={d.options}
                placeholder={d.placeholder}
                allowClear
              />
            </Form.Item>
          </Col>
        ))}
        <Col xs={24} sm={12}>
          <Form.Item label="Rule metric" name="rule_metric" htmlFor="price-rule-metric">
            <Select
              id="price-rule-metric"
              placeholder="Any metric"
              allowClear
              options={Object.entries(RULE_METRIC_LABELS).map(([value, label]) => ({ value, label }))}
            />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item
        label="Unit price (USD)"
        name="unit_price_usd"
        htmlFor="price-rule-unit-price"
        rules={usdRules(
          "Enter the price of one unit in USD.",
          USD_PATTERN,
          'Enter a USD amount such as "0.0125" (at most 6 decimals, not negative).',
        )}
        extra="USD per unit (one eval or one prompt), up to 6 decimals."
      >
        <Input id="price-rule-unit-price" prefix="$" inputMode="decimal" placeholder="0.0125" />
      </Form.Item>
      <Form.Item
        label="Valid from (UTC)"
        name="valid_from"
        htmlFor="price-rule-valid-from"
        extra="Empty: now. May be in the past: events ingested later with an earlier time get this price; events already priced keep theirs."
      >
        <DatePicker
          id="price-rule-valid-from"
          showTime={{ format: "HH:mm" }}
          format="YYYY-MM-DD HH:mm"
          placeholder="Now"
          style={{ width: "100%" }}
        />
      </Form.Item>
    </OperatorFormModal>
  );
}
