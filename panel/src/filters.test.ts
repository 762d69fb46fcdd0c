import { describe, expect, it } from "vitest";
import { activeFilters, apiQuery, defaultFilters, filtersSearch, histogramInterval, parseFilters, timeWindow } from "./filters";

describe("filters in the URL", () => {
  it("round-trips every field", () => {
    const f = {
      ...defaultFilters, range: "custom" as const, from: "2026-11-01T00:00:00.000Z", to: "2026-11-02T00:00:00.000Z",
      actorEmail: "a@x.example", action: ["delete", "update"], resourceType: ["queue"], resourceId: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f",
      crossTenant: true, outcome: "failure" as const, q: "maxWait*", system: true, sort: "action" as const, order: "desc" as const,
    };
    expect(parseFilters(filtersSearch(f))).toEqual(f);
  });
  it("leaves the defaults out of the URL", () => {
    expect(filtersSearch(defaultFilters)).toBe("");
    expect(parseFilters("")).toEqual(defaultFilters);
  });
  it("ignores values it does not know", () => {
    const f = parseFilters("?range=2y&sort=reason&outcome=maybe&crossTenant=perhaps");
    expect(f.range).toBe("7d");
    expect(f.sort).toBe("timestamp");
    expect(f.outcome).toBeUndefined();
    expect(f.crossTenant).toBeUndefined();
  });
  it("turns a quick range into from, relative to now", () => {
    const now = new Date("2026-11-22T12:00:00.000Z");
    expect(timeWindow({ ...defaultFilters, range: "24h" }, now)).toEqual({ from: "2026-11-21T12:00:00.000Z" });
    expect(timeWindow({ ...defaultFilters, range: "all" }, now)).toEqual({});
    expect(apiQuery({ ...defaultFilters, range: "30d", action: ["delete"], crossTenant: false }, now)).toEqual({
      from: "2026-10-23T12:00:00.000Z", action: "delete", crossTenant: false, system: false,
    });
  });
  it("sizes histogram buckets to the window", () => {
    expect(histogramInterval(0, 3600_000)).toBe("1m");
    expect(histogramInterval(0, 24 * 3600_000)).toBe("30m");
    expect(histogramInterval(0, 30 * 86_400_000)).toBe("12h");
  });
});

describe("active filters", () => {
  it("count what narrows the log beyond the defaults", () => {
    expect(activeFilters(parseFilters(""))).toBe(0);
    expect(activeFilters(parseFilters("?range=all&action=delete,update&q=ip%3A10.0.0.0%2F8&crossTenant=true"))).toBe(4);
    expect(activeFilters(parseFilters("?crossTenant=true"), true)).toBe(0);
  });
});

describe("the service's own records", () => {
  const now = new Date("2026-11-26T12:00:00Z");
  it("are left out by default, shown on request or when their kind is asked for", () => {
    expect(apiQuery(defaultFilters, now).system).toBe(false);
    expect(apiQuery({ ...defaultFilters, system: true }, now).system).toBeUndefined();
    expect(apiQuery({ ...defaultFilters, resourceType: ["periodic_export"] }, now).system).toBeUndefined();
    expect(filtersSearch({ ...defaultFilters, system: true })).toBe("?system=true");
  });
});
