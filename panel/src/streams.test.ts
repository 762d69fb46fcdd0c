import { describe, expect, it } from "vitest";
import { configOf, emptyForm, fieldErrors, lagText, target } from "./streams";

describe("streams", () => {
  it("sends only the destination fields of the chosen kind", () => {
    const f = { ...emptyForm(), name: " SIEM ", kind: "splunk_hec" as const, url: "https://s.example.com:8088", token: "12345678-9abc-def0-1234-56789abcdef0",
      bucket: "left-over", secret: "left-over", filter: " -action:access ", notify: "a@x.example, b@x.example" };
    expect(configOf(f)).toEqual({ name: "SIEM", destination: { kind: "splunk_hec", url: "https://s.example.com:8088", token: "12345678-9abc-def0-1234-56789abcdef0" },
      filter: "-action:access", notify: ["a@x.example", "b@x.example"] });
    expect(configOf({ ...f, kind: "s3", bucket: "lake" }).destination).toEqual({ kind: "s3", bucket: "lake" });
    expect(configOf({ ...f, kind: "webhook", secret: "" }).destination).toEqual({ kind: "webhook", url: "https://s.example.com:8088" });
    expect(configOf({ ...f, format: "ocsf" }).format).toBe("ocsf");
    expect(configOf({ ...f, kind: "sentinel", dcr: "dcr-1", streamName: "Custom-A", azureTenant: "t", clientId: "c", secret: "s" }).destination).toEqual(
      { kind: "sentinel", url: "https://s.example.com:8088", dcr: "dcr-1", streamName: "Custom-A", azureTenant: "t", clientId: "c", secret: "s" });
    expect(configOf({ ...f, kind: "datadog", token: "0123456789abcdef0123456789abcdef" }).destination).toEqual(
      { kind: "datadog", url: "https://s.example.com:8088", token: "0123456789abcdef0123456789abcdef" });
    expect(fieldErrors([{ field: "format", message: "want one of event, ocsf" }])).toEqual({ format: "want one of event, ocsf" });
  });
  it("puts each of the API's errors on its field", () => {
    expect(fieldErrors([{ field: "destination.url", message: "must be an https:// URL" }, { field: "notify[1]", message: "want an e-mail address" },
      { field: "destination.kind", message: "no S3 server" }, { field: "mask.actor.ip", message: "x" }])).toEqual({
      url: "must be an https:// URL", notify: "want an e-mail address", kind: "no S3 server", other: "x" });
  });
  it("says how far behind a stream is, and where it goes", () => {
    expect(lagText({ state: "active", lag: { events: 0, seconds: 0 } })).toBe("caught up");
    expect(lagText({ state: "failing", lag: { events: 12345, seconds: 300 } })).toBe("12,345 events behind, for 5 min");
    expect(lagText({ state: "active", lag: { events: 3, seconds: 2.4 } })).toBe("3 events behind, for 2 s");
    expect(target({ kind: "s3", bucket: "lake" })).toBe("s3://lake/auditlog-streams");
  });
});
