// The search language as the panel explains it beside the Search box:
// the same grammar as the API's q (README, "The search language").
export const searchExamples: { query: string; means: string }[] = [
  { query: "192.87.140.139", means: "any field, values of changes and declared reasons included" },
  { query: "CS-4821", means: "an operator's declared reason, or any word of the event" },
  { query: "actor:grace*", means: "users whose e-mail starts with grace" },
  { query: "ip:10.0.0.0/8", means: "actions from an address or a CIDR block (IPv4, IPv6)" },
  { query: "-action:access", means: "hide the reads (- negates any term)" },
  { query: "action:delete,update", means: "one field, any of the values (OR)" },
  { query: "resource:queue role:admin", means: "several terms: all of them (AND)" },
  { query: 'reason:"payment dispute"', means: "a quoted phrase" },
  { query: "created:>=2026-11-01 created:<2026-11-08", means: "a time range (also created:2026-11-01..2026-11-07)" },
  { query: "outcome:failure category:security", means: "failed security events" },
];

/** qualifiers are the fields a term can name. */
export const qualifiers = ["actor", "actor.id", "role", "ip", "action", "type", "resource", "category", "outcome", "reason", "request", "crossTenant", "created"];
