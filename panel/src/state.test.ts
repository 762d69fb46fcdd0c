import { describe, expect, it } from "vitest";
import { diffSides, flatten, show, sideBySide } from "./state";

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

describe("diffSides", () => {
  it("gives a deletion's value on the left and nothing on the right", () => {
    const { before, after } = diffSides({ name: { from: "Sales EMEA", to: null }, maxWait: { from: 30, to: 60 } });
    expect(before).toEqual({ name: "Sales EMEA", maxWait: 30 });
    expect(after).toEqual({ maxWait: 60 });
    const rows = sideBySide(before, after);
    expect(rows.map((r) => [r.path, show(r.left, r.leftHas), show(r.right, r.rightHas), r.changed])).toEqual([
      ["maxWait", "30", "60", true], ["name", '"Sales EMEA"', "—", true]]);
  });
});
