// Pivots: from one event, one click (and one URL) to the events that
// share something with it, written in the search language (q) over the
// whole log (range all). "Around" is the same actor or the same address
// within 15 minutes on both sides.
import type { AuditEvent } from "./api/client";
import { defaultFilters, filtersSearch } from "./filters";

export type Pivot = { label: string; search: string };

const AROUND_MS = 15 * 60_000;

/** quoted is a search-language value in quotes (a quote inside cannot
 * be written, and no value of these fields holds one). */
const quoted = (v: string) => `"${v.replaceAll('"', "")}"`;

function link(q: string): string {
  return filtersSearch({ ...defaultFilters, range: "all", q });
}

/** pivots are the links of the event drawer, in order. */
export function pivots(e: AuditEvent): Pivot[] {
  const t = Date.parse(e.timestamp);
  const around = `created:>=${new Date(t - AROUND_MS).toISOString()} created:<=${new Date(t + AROUND_MS).toISOString()}`;
  const actor = `actor:${quoted(e.actor.email)}`;
  const out: Pivot[] = [{ label: "By this actor", search: link(actor) }];
  const ip = e.actor.ip;
  if (ip) out.push({ label: "From this IP", search: link(`ip:${ip}`) });
  out.push({ label: "On this resource", search: link(`type:${e.resource.type} resource:${quoted(e.resource.id)}`) });
  if (e.requestId) out.push({ label: "With this request", search: link(`request:${quoted(e.requestId)}`) });
  out.push({ label: "Around it: this actor ±15 min", search: link(`${actor} ${around}`) });
  if (ip) out.push({ label: "Around it: this IP ±15 min", search: link(`ip:${ip} ${around}`) });
  return out;
}
