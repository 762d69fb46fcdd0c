import { describe, expect, it } from "vitest";
import { formatTime, fromZonedInput, isZone, toZonedInput, zones } from "./time";

// Expected instants are written out by hand from the zones' published
// rules (tz database), not computed with the code under test.
describe("times typed in a chosen zone", () => {
  it.each([
    ["2026-11-11T00:00", "America/Los_Angeles", "2026-11-11T08:00:00.000Z"], // PST, UTC-8
    ["2026-07-01T09:30", "America/Los_Angeles", "2026-07-01T16:30:00.000Z"], // PDT, UTC-7
    ["2026-11-11T00:00", "UTC", "2026-11-11T00:00:00.000Z"],
    ["2026-11-11T00:00", "Asia/Kolkata", "2026-11-10T18:30:00.000Z"], // UTC+5:30
    ["2026-11-11T00:00", "Asia/Kathmandu", "2026-11-10T18:15:00.000Z"], // UTC+5:45
    ["2026-06-15T12:00", "Europe/Paris", "2026-06-15T10:00:00.000Z"], // CEST
    ["2026-01-15T12:00", "Australia/Sydney", "2026-01-15T01:00:00.000Z"], // AEDT, UTC+11
    ["2026-11-11T00:00:30", "Europe/London", "2026-11-11T00:00:30.000Z"],
    // 2026-03-08 02:30 does not exist in Los Angeles (02:00 PST → 03:00 PDT):
    // read with the offset before the change, as 03:30 PDT.
    ["2026-03-08T02:30", "America/Los_Angeles", "2026-03-08T10:30:00.000Z"],
    // 2026-11-01 01:30 happens twice in Los Angeles: the first one (PDT).
    ["2026-11-01T01:30", "America/Los_Angeles", "2026-11-01T08:30:00.000Z"],
  ])("%s in %s is %s", (typed, zone, utc) => {
    expect(fromZonedInput(typed, zone)).toBe(utc);
  });

  it("refuses what is not a date and time", () => {
    expect(fromZonedInput("", "UTC")).toBeUndefined();
    expect(fromZonedInput("2026-11-11", "UTC")).toBeUndefined();
  });

  it.each([
    ["2026-11-11T08:00:00.000Z", "America/Los_Angeles", "2026-11-11T00:00"],
    ["2026-11-10T18:15:00Z", "Asia/Kathmandu", "2026-11-11T00:00"],
    ["2026-11-01T09:30:00Z", "America/Los_Angeles", "2026-11-01T01:30"],
  ])("%s shows as %s in %s", (iso, zone, shown) => {
    expect(toZonedInput(iso, zone)).toBe(shown);
  });
});

describe("times shown in a chosen zone", () => {
  it.each([
    ["2026-11-11T08:00:00.000Z", "America/Los_Angeles", "2026-11-11 00:00:00 UTC-08:00"],
    ["2026-07-01T16:30:00.000Z", "America/Los_Angeles", "2026-07-01 09:30:00 UTC-07:00"],
    ["2026-11-10T18:15:00.000Z", "Asia/Kathmandu", "2026-11-11 00:00:00 UTC+05:45"],
    ["2026-11-11T08:00:00.123Z", "UTC", "2026-11-11 08:00:00 UTC"],
  ])("%s in %s is %s", (iso, zone, shown) => {
    expect(formatTime(iso, zone)).toBe(shown);
  });

  it("knows IANA zones and refuses others", () => {
    expect(isZone("America/Los_Angeles")).toBe(true);
    expect(isZone("Mars/Olympus")).toBe(false);
    expect(zones()[0]).toBe("UTC");
    expect(zones()).toContain("America/Los_Angeles");
  });
});
