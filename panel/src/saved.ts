// Saved searches as the panel keeps them (POST /api/saved-searches): the
// filters of the URL split into the list's query string and a time
// range. A saved search's link is the panel URL of its filters, so it
// shows the same events to whoever opens it.
import { defaultFilters, filtersSearch, parseFilters, type Filters } from "./filters";

export type SavedBody = { name: string; query: string; range: Filters["range"]; from?: string; to?: string };
export type Saved = { query: string; range: string; from?: string | null; to?: string | null };

/** toSaved is the body saving f under name. */
export function toSaved(name: string, f: Filters): SavedBody {
  const query = filtersSearch({ ...f, range: defaultFilters.range, from: undefined, to: undefined }).replace(/^\?/, "");
  const body: SavedBody = { name, query, range: f.range };
  if (f.range === "custom") {
    if (f.from) body.from = f.from;
    if (f.to) body.to = f.to;
  }
  return body;
}

/** savedFilters are the filters a saved search shows. */
export function savedFilters(s: Saved): Filters {
  const f = parseFilters(s.query);
  const range = (["24h", "7d", "30d", "all", "custom"] as const).find((r) => r === s.range) ?? defaultFilters.range;
  return { ...f, range, from: range === "custom" ? s.from ?? undefined : undefined, to: range === "custom" ? s.to ?? undefined : undefined };
}

/** savedLink is the panel URL (relative) of a saved search. */
export const savedLink = (s: Saved) => filtersSearch(savedFilters(s)) || "?";
