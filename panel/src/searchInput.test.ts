import { describe, expect, it } from "vitest";
import { looksFinished } from "./searchInput";

describe("the search box sends on a pause only what looks finished", () => {
  it.each(["", "grace", "actor:grace*", "198.51.100.23", 'reason:"payment dispute"', "type:ivr,queue", "created:2026-11-01..2026-11-02", "-action:access", "a OR b"])(
    "sends %j", (q) => expect(looksFinished(q)).toBe(true));
  it.each(["actor:", 'reason:"payment', "type:ivr,", "created:2026-11-01..", "grace -", "a OR", "created:>="])(
    "waits on %j", (q) => expect(looksFinished(q)).toBe(false));
});
