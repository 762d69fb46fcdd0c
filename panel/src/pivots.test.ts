import { describe, expect, it } from "vitest";
import { parseFilters } from "./filters";
import { pivots } from "./pivots";
import type { AuditEvent } from "./api/client";

const e = {
  id: "evt_audit_0193a6a4-1b2c-7d3e-8f40-5a6b7c8d9e0f", timestamp: "2026-11-20T10:00:00.000Z", tenantId: "t",
  actor: { id: "a", email: "grace@acme.example", role: "admin", ip: "192.87.140.139" },
  action: "update", resource: { type: "ivr", id: "main-menu" }, diff: {}, crossTenant: false, requestId: "req_5d1c9b",
} as unknown as AuditEvent;

describe("pivots", () => {
  it("are search-language queries over the whole log", () => {
    const all = Object.fromEntries(pivots(e).map((p) => [p.label, parseFilters(p.search)]));
    const qs = (label: string) => {
      const f = all[label];
      if (!f) throw new Error(`no pivot ${label}`);
      return f;
    };
    expect(qs("By this actor").q).toBe('actor:"grace@acme.example"');
    expect(qs("From this IP").q).toBe("ip:192.87.140.139");
    expect(qs("On this resource").q).toBe('type:ivr resource:"main-menu"');
    expect(qs("With this request").q).toBe('request:"req_5d1c9b"');
    expect(qs("Around it: this actor ±15 min").q).toBe('actor:"grace@acme.example" created:>=2026-11-20T09:45:00.000Z created:<=2026-11-20T10:15:00.000Z');
    expect(qs("Around it: this IP ±15 min").q).toBe("ip:192.87.140.139 created:>=2026-11-20T09:45:00.000Z created:<=2026-11-20T10:15:00.000Z");
    for (const f of Object.values(all)) expect(f.range).toBe("all");
  });
  it("leave out what the event does not have", () => {
    const bare = { ...e, actor: { ...e.actor, ip: undefined }, requestId: undefined } as unknown as AuditEvent;
    expect(pivots(bare).map((p) => p.label)).toEqual(["By this actor", "On this resource", "Around it: this actor ±15 min"]);
  });
});
