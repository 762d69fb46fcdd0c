// The filters on screen, kept in the URL: shareable, bookmarkable, and the
// back button walks through them. Every field maps to one query parameter
// of GET /api/audit-logs, so the panel asks exactly what the URL says.

export type Filters = {
  range: "24h" | "7d" | "30d" | "custom" | "all";
  from?: string; // ISO 8601, with range custom
  to?: string;
  actorEmail?: string;
  action: string[];
  resourceType: string[];
  resourceId?: string;
  crossTenant?: boolean;
  outcome?: "success" | "failure";
  q?: string;
  /** system shows the service's own records (periodic deliveries,
   * retention deletions, plan changes), left out by default. */
  system?: boolean;
  sort: "timestamp" | "actor.email" | "action" | "resource.type";
  order?: "asc" | "desc";
};

export const defaultFilters: Filters = { range: "7d", action: [], resourceType: [], sort: "timestamp" };

const ranges = { "24h": 24, "7d": 7 * 24, "30d": 30 * 24 } as const;
const sorts = ["timestamp", "actor.email", "action", "resource.type"] as const;

/** parseFilters reads the filters of a location's query string. */
export function parseFilters(search: string): Filters {
  const p = new URLSearchParams(search);
  const list = (k: string) => (p.get(k) ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const range = p.get("range");
  const sort = p.get("sort");
  const order = p.get("order");
  const outcome = p.get("outcome");
  const ct = p.get("crossTenant");
  return {
    range: range === "24h" || range === "7d" || range === "30d" || range === "custom" || range === "all" ? range : defaultFilters.range,
    from: p.get("from") || undefined,
    to: p.get("to") || undefined,
    actorEmail: p.get("actorEmail") || undefined,
    action: list("action"),
    resourceType: list("resourceType"),
    resourceId: p.get("resourceId") || undefined,
    crossTenant: ct === "true" ? true : ct === "false" ? false : undefined,
    outcome: outcome === "success" || outcome === "failure" ? outcome : undefined,
    q: p.get("q") || undefined,
    system: p.get("system") === "true" ? true : undefined,
    sort: (sorts as readonly string[]).includes(sort ?? "") ? (sort as Filters["sort"]) : "timestamp",
    order: order === "asc" || order === "desc" ? order : undefined,
  };
}

/** filtersSearch is the query string of f (defaults left out). */
export function filtersSearch(f: Filters, extra: Record<string, string | undefined> = {}): string {
  const p = new URLSearchParams();
  if (f.range !== defaultFilters.range) p.set("range", f.range);
  if (f.range === "custom") {
    if (f.from) p.set("from", f.from);
    if (f.to) p.set("to", f.to);
  }
  if (f.actorEmail) p.set("actorEmail", f.actorEmail);
  if (f.action.length) p.set("action", f.action.join(","));
  if (f.resourceType.length) p.set("resourceType", f.resourceType.join(","));
  if (f.resourceId) p.set("resourceId", f.resourceId);
  if (f.crossTenant !== undefined) p.set("crossTenant", String(f.crossTenant));
  if (f.outcome) p.set("outcome", f.outcome);
  if (f.q) p.set("q", f.q);
  if (f.system) p.set("system", "true");
  if (f.sort !== "timestamp") p.set("sort", f.sort);
  if (f.order) p.set("order", f.order);
  for (const [k, v] of Object.entries(extra)) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** window is the [from, to) of f at time now, as the API takes them. */
export function timeWindow(f: Filters, now: Date): { from?: string; to?: string } {
  if (f.range === "custom") return { from: f.from, to: f.to };
  if (f.range === "all") return {};
  return { from: new Date(now.getTime() - ranges[f.range] * 3600_000).toISOString() };
}

/** apiQuery is f as the query of GET /api/audit-logs (and /stats, and
 * the exports, which take the same filters). */
export function apiQuery(f: Filters, now: Date): Record<string, string | boolean> {
  const q: Record<string, string | boolean> = {};
  const w = timeWindow(f, now);
  if (w.from) q.from = w.from;
  if (w.to) q.to = w.to;
  if (f.actorEmail) q.actorEmail = f.actorEmail;
  if (f.action.length) q.action = f.action.join(",");
  if (f.resourceType.length) q.resourceType = f.resourceType.join(",");
  if (f.resourceId) q.resourceId = f.resourceId;
  if (f.crossTenant !== undefined) q.crossTenant = f.crossTenant;
  if (f.outcome) q.outcome = f.outcome;
  if (f.q) q.q = f.q;
  if (hidesSystem(f)) q.system = false;
  return q;
}

/** systemKinds are the resource kinds of the service's own records
 * (audit.SystemResourceTypes). */
export const systemKinds = ["periodic_export", "audit_log_retention", "tenant_plan"];

/** hidesSystem reports whether f leaves the service's own records out:
 * by default, unless shown (system) or asked for by kind. */
export function hidesSystem(f: Filters): boolean {
  return !f.system && !f.resourceType.some((k) => systemKinds.includes(k));
}

/** histogramInterval picks a bucket width giving about 60 bars. */
export function histogramInterval(fromMs: number, toMs: number): string {
  const span = Math.max(toMs - fromMs, 60_000);
  const steps: [number, string][] = [
    [60_000, "1m"], [300_000, "5m"], [900_000, "15m"], [1_800_000, "30m"], [3_600_000, "1h"],
    [3 * 3_600_000, "3h"], [6 * 3_600_000, "6h"], [12 * 3_600_000, "12h"], [86_400_000, "1d"], [7 * 86_400_000, "7d"],
  ];
  for (const [ms, name] of steps) if (span / ms <= 80) return name;
  return "30d";
}

/** activeFilters counts the filters of f that narrow the log beyond the
 * default (the date range when it is not the default one counts as one;
 * the operator view's own crossTenant does not). */
export function activeFilters(f: Filters, operator = false): number {
  return [
    f.range !== defaultFilters.range, !!f.actorEmail, f.action.length > 0, f.resourceType.length > 0, !!f.resourceId,
    !operator && f.crossTenant !== undefined, !!f.outcome, !!f.q,
  ].filter(Boolean).length;
}
