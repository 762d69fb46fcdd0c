// What the Exports view shows of an export's criteria: the query string
// it was asked with, as filters a person reads ("Action: delete"), times
// in the chosen zone.
import { formatTime } from "./time";

const labels: Record<string, string> = {
  from: "From", to: "To", actorId: "User id", actorEmail: "User", action: "Action", resourceType: "Resource kind", resourceId: "Resource",
  crossTenant: "Operator team", cross_tenant: "Operator team", category: "Category", outcome: "Outcome", q: "Search", sort: "Sort", order: "Order",
  format: "Format",
};

/** criteria lists the filters of an export's query as label and value;
 * parameters that do not choose rows (async) are left out. A query with a
 * start but no end (the panel's ranges are open, up to now) ends when it
 * was asked, askedAt: that end is shown too, so that a job says which
 * span it holds. */
export function criteria(query: string, zone: string, askedAt?: string): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [];
  const p = new URLSearchParams(query);
  for (const [k, v] of p) {
    if (k === "async" || !v) continue;
    if (k === "system") {
      if (v === "false") out.push({ label: "Service's own records", value: "left out" });
      continue;
    }
    out.push({ label: labels[k] ?? k, value: k === "from" || k === "to" ? formatTime(v, zone) : v });
    if (k === "from" && !p.get("to") && askedAt) out.push({ label: "To", value: `${formatTime(askedAt, zone)} (when asked)` });
  }
  return out;
}

/** attachmentName is the file name of a Content-Disposition header. */
export function attachmentName(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star?.[1]) return decodeURIComponent(star[1]);
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain?.[1];
}
