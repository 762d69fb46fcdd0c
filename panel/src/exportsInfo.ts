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
 * parameters that do not choose rows (async) are left out. */
export function criteria(query: string, zone: string): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [];
  for (const [k, v] of new URLSearchParams(query)) {
    if (k === "async" || !v) continue;
    out.push({ label: labels[k] ?? k, value: k === "from" || k === "to" ? formatTime(v, zone) : v });
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
