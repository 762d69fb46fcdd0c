import { describe, expect, it } from "vitest";
import { bodyOf, emptyHoldForm, formOf, holdFieldErrors, releaseText, scopeText, type Hold } from "./holds";

const fmt = (t: string) => t.slice(0, 10);

describe("bodyOf", () => {
  it("leaves out empty members and makes to the next day's start", () => {
    const b = bodyOf({ ...emptyHoldForm(), matter: " Dispute 7 ", reason: "counsel", from: "2026-03-01", to: "2026-03-31", q: "actor:grace*" });
    expect(b).toEqual({ matter: "Dispute 7", reason: "counsel", scope: { from: "2026-03-01T00:00:00Z", to: "2026-04-01T00:00:00Z", q: "actor:grace*" } });
  });
  it("keeps an empty scope: every event", () => {
    expect(bodyOf({ ...emptyHoldForm(), matter: "m", reason: "r" }).scope).toEqual({});
  });
  it("round-trips through formOf", () => {
    const f = { matter: "m", reason: "r", reference: "LIT-1", from: "2026-03-01", to: "2026-03-31", q: "" };
    const b = bodyOf(f);
    const h = { ...b, id: "x", tenantId: "t", placedBy: "c@x", placedAt: "", state: "active", events: 0, pastRetentionAt: 0 } as unknown as Hold;
    expect(formOf(h)).toEqual({ ...f, to: "2026-04-01" });
  });
});

describe("holdFieldErrors", () => {
  it("names the form's fields", () => {
    const e = holdFieldErrors([{ field: "scope.q", message: "bad" }, { field: "scope.to", message: "after from" }, { field: "matter", message: "required" }, { field: "x", message: "y" }]);
    expect(e).toEqual({ q: "bad", to: "after from", matter: "required", other: "y" });
  });
});

describe("texts", () => {
  it("says what a scope keeps", () => {
    expect(scopeText({ scope: {} }, fmt)).toBe("every event, all time");
    expect(scopeText({ scope: { q: "action:delete", from: "2026-03-01T00:00:00Z" } }, fmt)).toBe("events matching action:delete, from 2026-03-01 on");
  });
  it("says what a release lets retention delete", () => {
    expect(releaseText({ state: "releasing", releaseAt: "2026-12-05T00:00:00Z", pastRetentionAt: 1234, overlapping: ["a"] }, fmt))
      .toBe("Released on 2026-12-05: retention may then delete 1,234 of its events (unless another hold keeps some).");
    expect(releaseText({ state: "active", releaseAt: "2026-12-05T00:00:00Z", pastRetentionAt: 0 }, fmt))
      .toBe("Released now, it would stop holding on 2026-12-05: retention may then delete 0 of its events.");
    expect(releaseText({ state: "released", pastRetentionAt: 0 }, fmt)).toMatch(/^Released:/);
  });
});
