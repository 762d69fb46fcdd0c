import { describe, expect, it } from "vitest";
import { fieldParts } from "./fieldName";

describe("fieldParts", () => {
  it("breaks after each separator and before each camelCase word", () => {
    expect(fieldParts("settings.recording.retentionPolicyName")).toEqual(["settings.", "recording.", "retention", "Policy", "Name"]);
    expect(fieldParts("queue_overflow-target/x")).toEqual(["queue_", "overflow-", "target/", "x"]);
    expect(fieldParts("members[12].id")).toEqual(["members[", "12].", "id"]);
    expect(fieldParts("ivrStep2Prompt")).toEqual(["ivr", "Step", "2", "Prompt"]);
  });
  it("keeps a word whole, an acronym included, and joins back to the name", () => {
    expect(fieldParts("timeout")).toEqual(["timeout"]);
    expect(fieldParts("SLA")).toEqual(["SLA"]);
    expect(fieldParts("a..b")).toEqual(["a..", "b"]);
    for (const n of ["", "x", "settings.recording.retentionPolicyName", "__x__", "[0]"]) expect(fieldParts(n).join("")).toBe(n);
  });
});
