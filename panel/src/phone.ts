// What the phone's layout shows in place of the wide table's columns and
// headers (EventCards.tsx, FilterSheet.tsx).
import type { AuditEvent } from "./api/client";
import type { Filters } from "./filters";
import { show } from "./state";

/** firstChange is an event's first changed field as "field: from → to",
 * and how many more changed; undefined for an event with no diff. */
export function firstChange(e: AuditEvent): { text: string; more: number } | undefined {
  const entries = Object.entries(e.diff ?? {});
  const [k, c] = entries[0] ?? [];
  if (!k || !c) return undefined;
  return { text: `${k}: ${show(c.from)} → ${show(c.to)}`, more: entries.length - 1 };
}

const sortLabels: Record<Filters["sort"], [string, string]> = {
  timestamp: ["Newest first", "Oldest first"],
  "actor.email": ["User A → Z", "User Z → A"],
  action: ["Action A → Z", "Action Z → A"],
  "resource.type": ["Resource A → Z", "Resource Z → A"],
};

const defaultOrder = (field: Filters["sort"]) => (field === "timestamp" ? "desc" : "asc");

/** sortChoices are the orders a phone offers in place of the table's
 * column headers: each field both ways, its default first. */
export const sortChoices = (Object.keys(sortLabels) as Filters["sort"][]).flatMap((field) => {
  const [first, second] = sortLabels[field];
  const dflt = defaultOrder(field);
  return [{ value: `${field}:${dflt}`, label: first }, { value: `${field}:${dflt === "desc" ? "asc" : "desc"}`, label: second }];
});

/** sortValue is the choice f sorts by. */
export const sortValue = (f: Filters) => `${f.sort}:${f.order ?? defaultOrder(f.sort)}`;

/** sortFilters is f sorted by the choice v (a field's default order left
 * out of the URL, as the table's headers leave it). */
export function sortFilters(f: Filters, v: string): Filters {
  const [field, order] = v.split(":") as [Filters["sort"], "asc" | "desc"];
  return { ...f, sort: field, order: order === defaultOrder(field) ? undefined : order };
}
