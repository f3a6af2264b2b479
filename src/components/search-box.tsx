import { SearchOutlined } from "@ant-design/icons";
import { Input } from "antd";
import { useEffect, useMemo, useRef, useState } from "react";
import { debounce } from "../lib/debounce";

type Props = {
  label: string;
  placeholder: string;
  delayMs: number;
  /** The text the box opens with (e.g. a search restored from the address). */
  initialValue?: string;
  /** Called `delayMs` after the last keystroke with the text as typed. */
  onSearch: (value: string) => void;
  /** Called on every keystroke, before the debounced search (e.g. to show that one is coming). */
  onType?: (value: string) => void;
};

/** A search field that shows every keystroke at once but searches only once typing pauses. */
export function SearchBox({ label, placeholder, delayMs, initialValue = "", onSearch, onType }: Props) {
  const [text, setText] = useState(initialValue);
  // The latest callback, so a parent re-render never restarts the pending search.
  const latest = useRef(onSearch);
  latest.current = onSearch;
  const apply = useMemo(() => debounce((value: string) => latest.current(value), delayMs), [delayMs]);
  useEffect(() => () => apply.cancel(), [apply]);
  return (
    <Input
      allowClear
      aria-label={label}
      placeholder={placeholder}
      prefix={<SearchOutlined aria-hidden />}
      value={text}
      onChange={(event) => {
        setText(event.target.value);
        onType?.(event.target.value);
        apply(event.target.value);
      }}
      style={{ maxWidth: 360, marginBottom: 16 }}
    />
  );
}
