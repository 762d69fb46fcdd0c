import { describe, expect, it } from "vitest";
import { parseFilters } from "./filters";
import { savedFilters, savedLink, toSaved } from "./saved";

describe("saved searches", () => {
  it("keep the list's filters in query and the time range apart", () => {
    const f = parseFilters("?range=30d&q=actor%3Agrace*+-action%3Aaccess&resourceType=queue,ivr&sort=action&order=desc");
    expect(toSaved("Grace", f)).toEqual({ name: "Grace", query: "resourceType=queue%2Civr&q=actor%3Agrace*+-action%3Aaccess&sort=action&order=desc", range: "30d" });
  });

  it("keep a custom range's instants, and only with it", () => {
    const f = parseFilters("?range=custom&from=2026-11-11T08%3A00%3A00.000Z&outcome=failure");
    expect(toSaved("x", f)).toEqual({ name: "x", query: "outcome=failure", range: "custom", from: "2026-11-11T08:00:00.000Z" });
    expect(toSaved("x", { ...f, range: "7d" })).toEqual({ name: "x", query: "outcome=failure", range: "7d" });
  });

  it("open as the filters they were saved from", () => {
    const search = "?range=custom&from=2026-11-11T08%3A00%3A00.000Z&to=2026-11-12T08%3A00%3A00.000Z&actorEmail=grace%40x.example&q=ip%3A10.0.0.0%2F8";
    const f = parseFilters(search);
    const body = toSaved("x", f);
    expect(savedFilters({ ...body, from: body.from ?? null, to: body.to ?? null })).toEqual(f);
    expect(savedLink(body)).toBe(search);
    expect(savedLink({ query: "", range: "7d" })).toBe("?");
  });
});
