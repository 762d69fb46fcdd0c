// The search language as the panel explains it beside the Search box:
// the same grammar as the API's q (docs/search.md). Each
// example finds something in the tenant's own log: the pasted address is
// one of the events on screen, the dates are the last week (issue 42;
// the browser test runs every example against the demo data).
import type { AuditEvent } from "./api/client";

export type Example = { query: string; means: string };

/** searchExamples are the examples shown at time now, the pasted value
 * taken from sample (an event on screen) when there is one. */
export function searchExamples(now: Date, sample?: AuditEvent): Example[] {
  const day = (d: number) => new Date(now.getTime() - d * 86_400_000).toISOString().slice(0, 10);
  const pasted = sample?.actor.ip || sample?.actor.email;
  return [
    ...(pasted ? [{ query: pasted, means: "paste an IP, e-mail, event, request or resource id: the events that hold it" }] : []),
    { query: "CS-4821", means: "an operator's declared reason, or any word of the event" },
    { query: "actor:grace*", means: "users whose e-mail starts with grace" },
    { query: "ip:198.0.0.0/8", means: "actions from a CIDR block or an address (IPv4, IPv6)" },
    { query: "-action:access", means: "hide the reads (- negates any term)" },
    { query: "action:delete,update", means: "one field, any of the values (OR)" },
    { query: "type:queue role:admin", means: "several terms: all of them (AND); type is the kind, resource the id" },
    { query: 'reason:"incident INC-207"', means: "a quoted phrase of the declared reason" },
    { query: `created:>=${day(7)} created:<${day(0)}`, means: `a time range (also created:${day(7)}..${day(1)})` },
    { query: "outcome:failure category:security", means: "failed security events" },
  ];
}

/** qualifiers are the fields a term can name. */
export const qualifiers = ["actor", "actor.id", "role", "ip", "action", "type", "resource", "category", "outcome", "reason", "request", "crossTenant", "created"];
