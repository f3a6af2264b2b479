// A one-line text is cut by CSS alone: mounting it reads no layout (antd's Typography ellipsis
// measured each text as it mounted), and its whole text shows on hover only when it is cut.
import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OneLineText } from "../../src/components/one-line-text";

/** Makes `element` report the given content and box widths, as a browser's layout would. */
function widths(element: HTMLElement, content: number, box: number) {
  Object.defineProperty(element, "scrollWidth", { configurable: true, value: content });
  Object.defineProperty(element, "clientWidth", { configurable: true, value: box });
}

afterEach(() => vi.restoreAllMocks());

describe("one-line text", () => {
  it("mounts without reading any layout", () => {
    const rect = vi.spyOn(Element.prototype, "getBoundingClientRect");
    const scroll = vi.spyOn(Element.prototype, "scrollWidth", "get");
    render(
      <>
        <OneLineText tooltip="Research and Development">Research and Development</OneLineText>
        <OneLineText>Acme AI</OneLineText>
      </>,
    );
    expect(screen.getByText("Acme AI")).toHaveClass("ant-typography-ellipsis");
    expect(rect).not.toHaveBeenCalled();
    expect(scroll).not.toHaveBeenCalled();
  });

  it("shows its whole text on hover when it is cut, and no tooltip when it fits", async () => {
    render(
      <>
        <OneLineText tooltip="Research and Development, Europe">Research and Development, Europe</OneLineText>
        <OneLineText tooltip="Ops">Ops</OneLineText>
      </>,
    );
    const fits = screen.getByText("Ops");
    widths(fits, 30, 120);
    fireEvent.mouseEnter(fits);
    const cut = screen.getByText("Research and Development, Europe");
    widths(cut, 300, 120);
    fireEvent.mouseEnter(cut);
    expect(await screen.findByRole("tooltip")).toHaveTextContent("Research and Development, Europe");
    expect(screen.getAllByRole("tooltip")).toHaveLength(1);
  });
});
