// The first view's requests start before React's first render, which
// takes a few hundred milliseconds on a slow machine: the list and the
// histogram are then already on their way when the components that show
// them mount and ask (useAsync takes a request started early by its key).
import { api, must, type AuditEvent, type ListQuery, type Stats } from "./api/client";
import type { components } from "./api/schema";
import { apiQuery, filtersSearch, histogramInterval, parseFilters, timeWindow, type Filters } from "./filters";

export type Suggestion = NonNullable<components["schemas"]["ListResponse"]["suggestions"]>[number];
export type Page = { events: AuditEvent[]; cursor?: string | null; total?: number; relation?: string; suggestions?: Suggestion[];
  unreadable?: { id: string; reason: string }[] };
export type Request<T> = { key: string; load: (signal?: AbortSignal) => Promise<T> };

/** viewFilters are the filters a view shows: the operator view is the
 * log fixed to crossTenant=true. */
export function viewFilters(search: string, operator: boolean): Filters {
  const f = parseFilters(search);
  return operator ? { ...f, crossTenant: true } : f;
}

/** listQuery is the query of a page of the events of f at time now. */
export function listQuery(f: Filters, now: Date): ListQuery {
  return { ...apiQuery(f, now), sort: f.sort, order: f.order, pageSize: 50 };
}

/** listRequest is the first page of the events of f at time now. */
export function listRequest(f: Filters, now: Date): Request<Page> {
  return {
    key: `list ${filtersSearch(f)} ${now.getTime()}`,
    load: async (signal) => {
      const r = await must(api.GET("/api/audit-logs", { params: { query: listQuery(f, now) }, signal }));
      return { events: r.data, cursor: r.nextCursor, total: r.total.value, relation: r.total.relation, suggestions: r.suggestions, unreadable: r.unreadable };
    },
  };
}

/** statsRequest is the histogram of f at time now: about 60 bars over
 * the window (the last 90 days when it is open), ending at toMs. The
 * window is always closed at now: /stats then draws its empty buckets
 * up to now, so a log that went quiet shows silence. (The list's query
 * keeps an open end, since following new events reuses it.) */
export function statsRequest(f: Filters, now: Date): Request<Stats> & { interval: string; toMs: number } {
  const w = timeWindow(f, now);
  const fromMs = w.from ? Date.parse(w.from) : now.getTime() - 90 * 86_400_000;
  const toMs = w.to ? Date.parse(w.to) : now.getTime();
  const interval = histogramInterval(fromMs, toMs);
  const query = { ...apiQuery(f, now), to: new Date(toMs).toISOString(), interval };
  return {
    interval,
    toMs,
    key: `stats ${JSON.stringify(query)}`,
    load: (signal) => must(api.GET("/api/audit-logs/stats", { params: { query: query as never }, signal })),
  };
}

const early = new Map<string, Promise<unknown>>();
let bootNow: Date | undefined = new Date();

/** firstNow is the time the first view is computed at (so that its
 * requests are the early ones); every later mount takes the clock. */
export function firstNow(): Date {
  const n = bootNow ?? new Date();
  bootNow = undefined;
  return n;
}

/** start sends the requests of the view the URL shows. */
export function start(search: string) {
  const view = new URLSearchParams(search).get("view");
  if ((view && view !== "operator") || !bootNow) return;
  const f = viewFilters(search, view === "operator");
  for (const r of [listRequest(f, bootNow), statsRequest(f, bootNow)]) {
    const p = r.load();
    p.catch(() => {}); // the component that takes it handles the failure
    early.set(r.key, p);
  }
  // Not taken by then (another view was opened): never reused later.
  setTimeout(() => early.clear(), 10_000);
}

/** take hands the request started early under key to its first asker. */
export function take<T>(key: string): Promise<T> | undefined {
  const p = early.get(key);
  early.delete(key);
  return p as Promise<T> | undefined;
}
