// A table's filter controls as Refine's search form (useTable's `searchFormProps`): the form's
// values go through the table's `onSearch` into Refine's filters, which live in the URL. It
// applies itself once changes pause, so typing sends one request, not one per key.
import { Form, type FormProps } from "antd";
import { type CSSProperties, type ReactNode, useEffect, useMemo, useRef } from "react";
import { debounce } from "../../lib/debounce";

/** The spec's search debounce. */
export const FILTER_DEBOUNCE_MS = 300;

type Props<T> = {
  searchFormProps: FormProps<T>;
  /** The controls' starting values, read from the table's filters (Refine's getDefaultFilter). */
  initialValues: Partial<T>;
  label: string;
  delayMs?: number;
  style?: CSSProperties;
  children: ReactNode;
};

export function FilterForm<T>({
  searchFormProps,
  initialValues,
  label,
  delayMs = FILTER_DEBOUNCE_MS,
  style,
  children,
}: Props<T>) {
  const form = searchFormProps.form;
  const latest = useRef(form);
  latest.current = form;
  const apply = useMemo(() => debounce(() => latest.current?.submit(), delayMs), [delayMs]);
  useEffect(() => () => apply.cancel(), [apply]);
  return (
    <Form<T>
      {...searchFormProps}
      initialValues={initialValues as FormProps["initialValues"]}
      layout="inline"
      aria-label={label}
      onValuesChange={() => apply()}
      style={{ rowGap: 12, ...style }}
    >
      {children}
    </Form>
  );
}
