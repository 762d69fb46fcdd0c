import { describe, expect, it } from "vitest";
import { flatten, show, sideBySide } from "./state";

describe("state paths", () => {
  it("names fields as the service's diff does", () => {
    const s = { a: { b: 1 }, rules: [{ id: "r1", mode: "all" }, { id: "r2", mode: "none" }], tags: ["x", "y"], empty: {} };
    expect([...flatten(s).entries()]).toEqual([
      ["a.b", 1], ["rules[r1].id", "r1"], ["rules[r1].mode", "all"], ["rules[r2].id", "r2"], ["rules[r2].mode", "none"], ["tags", ["x", "y"]], ["empty", {}],
    ]);
  });
  it("treats an array with repeated ids as one value", () => {
    expect([...flatten({ l: [{ id: 1 }, { id: 1 }] }).keys()]).toEqual(["l"]);
  });
  it("pairs two states side by side, matching array elements by id", () => {
    const rows = sideBySide({ rules: [{ id: "r1", mode: "a" }, { id: "r2", mode: "b" }] }, { rules: [{ id: "r2", mode: "b" }, { id: "r1", mode: "c" }] });
    expect(rows.filter((r) => r.changed).map((r) => r.path)).toEqual(["rules[r1].mode"]);
    expect(rows).toHaveLength(4);
  });
  it("never shows a masked secret's marker", () => {
    expect(show("masked:v1:abc")).toBe("•••• (secret)");
    expect(show(undefined, false)).toBe("—");
  });
});
