import { describe, expect, it } from "vitest";
import { capitalizeWords, evalTypeGroup, evalTypeLabel } from "../../contract/eval-types";

describe("eval type groups and labels", () => {
  it("groups hallucination with accuracy, whatever its case, and leaves other types alone", () => {
    expect(evalTypeGroup("hallucination")).toBe("accuracy");
    expect(evalTypeGroup("Hallucination")).toBe("accuracy");
    expect(evalTypeGroup("ACCURACY")).toBe("accuracy");
    expect(evalTypeGroup("image_safety")).toBe("image_safety");
    expect(evalTypeGroup("prompt_injection")).toBe("prompt_injection");
    expect(evalTypeGroup("Toxicity")).toBe("Toxicity");
    // A group is its own group, so the server can group what it already grouped.
    for (const raw of ["hallucination", "safety", "Toxicity", "constructor"])
      expect(evalTypeGroup(evalTypeGroup(raw))).toBe(evalTypeGroup(raw));
    expect(evalTypeGroup("constructor")).toBe("constructor");
  });

  it("folds ASCII case only, as the database does", () => {
    // "K" is the Kelvin sign: a Unicode lower-casing would make this "jailbreak".
    expect(evalTypeGroup("JAILBREA\u212A")).toBe("JAILBREA\u212A");
  });

  it("names eval types as the spec does", () => {
    expect(evalTypeLabel("safety")).toBe("Safety");
    expect(evalTypeLabel("image_safety")).toBe("Image Safety");
    expect(evalTypeLabel("jailbreak")).toBe("Jailbreak");
    expect(evalTypeLabel("accuracy")).toBe("Accuracy");
    expect(evalTypeLabel("hallucination")).toBe("Accuracy");
    expect(evalTypeLabel("prompt_injection")).toBe("Prompt Injection");
  });

  it("turns underscores into capitalised words", () => {
    expect(capitalizeWords("image_safety")).toBe("Image Safety");
    expect(capitalizeWords("red  teaming")).toBe("Red Teaming");
    expect(capitalizeWords(null)).toBe("");
  });
});
