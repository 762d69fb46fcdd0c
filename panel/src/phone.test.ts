import { describe, expect, it } from "vitest";
import type { AuditEvent } from "./api/client";
import { defaultFilters, filtersSearch, parseFilters } from "./filters";
import { firstChange, sortChoices, sortFilters, sortValue } from "./phone";

const event = (diff: AuditEvent["diff"]) => ({ id: "e", action: "update", diff }) as unknown as AuditEvent;

describe("firstChange", () => {
  it("is the first changed field, from and to as JSON, with how many more changed", () => {
    expect(firstChange(event({ name: { from: "sales", to: null }, queues: { from: [1], to: [1, 2] } }))).toEqual({ text: 'name: "sales" → null', more: 1 });
  });
  it("masks a secret as the drawer does", () => {
    expect(firstChange(event({ token: { from: "masked:v1:abc", to: "masked:v1:def" } }))?.text).toBe("token: •••• (secret) → •••• (secret)");
  });
  it("is nothing for an event without a diff", () => {
    expect(firstChange(event(undefined as unknown as AuditEvent["diff"]))).toBeUndefined();
    expect(firstChange(event({}))).toBeUndefined();
  });
});

describe("the phone's order", () => {
  it("offers every field both ways, each choice once", () => {
    expect(sortChoices).toHaveLength(8);
    expect(new Set(sortChoices.map((c) => c.value)).size).toBe(8);
  });
  it("is the URL the table's headers make, and reads back from it", () => {
    const oldest = sortFilters(defaultFilters, "timestamp:asc");
    expect(filtersSearch(oldest)).toBe("?order=asc");
    expect(sortValue(parseFilters(filtersSearch(oldest)))).toBe("timestamp:asc");
    const users = sortFilters(oldest, "actor.email:asc");
    expect(filtersSearch(users)).toBe("?sort=actor.email");
    expect(sortValue(users)).toBe("actor.email:asc");
    expect(sortValue(defaultFilters)).toBe("timestamp:desc");
  });
});
