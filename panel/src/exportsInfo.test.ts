import { describe, expect, it } from "vitest";
import { attachmentName, criteria } from "./exportsInfo";

describe("an export's criteria and file", () => {
  it("read as filters, times in the zone", () => {
    expect(criteria("action=delete&resourceType=queue&from=2026-11-11T08%3A00%3A00.000Z&async=true&q=actor%3Agrace*", "America/Los_Angeles")).toEqual([
      { label: "Action", value: "delete" },
      { label: "Resource kind", value: "queue" },
      { label: "From", value: "2026-11-11 00:00:00 UTC-08:00" },
      { label: "Search", value: "actor:grace*" },
    ]);
    expect(criteria("", "UTC")).toEqual([]);
  });

  it("say where an open range ended: when the export was asked", () => {
    expect(criteria("from=2026-11-11T08%3A00%3A00.000Z", "UTC", "2026-11-18T09:30:00.000Z")).toEqual([
      { label: "From", value: "2026-11-11 08:00:00 UTC" },
      { label: "To", value: "2026-11-18 09:30:00 UTC (when asked)" },
    ]);
    expect(criteria("from=2026-11-11T08%3A00%3A00.000Z&to=2026-11-12T00%3A00%3A00.000Z", "UTC", "2026-11-18T09:30:00.000Z").map((c) => c.label)).toEqual(["From", "To"]);
  });

  it("take the name the service gives", () => {
    expect(attachmentName('attachment; filename=audit-log_start_2026-11-25T0904Z_1a2b3c4d.jsonl')).toBe("audit-log_start_2026-11-25T0904Z_1a2b3c4d.jsonl");
    expect(attachmentName('attachment; filename="a b.csv"')).toBe("a b.csv");
    expect(attachmentName("attachment; filename*=UTF-8''%C3%A9t%C3%A9.csv")).toBe("été.csv");
    expect(attachmentName(null)).toBeUndefined();
  });
});
