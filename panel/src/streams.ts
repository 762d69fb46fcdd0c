// The streams view's rules, apart from React so that they are tested
// alone: the form's fields to the API's configuration, the API's field
// errors back to the form, and the words of a stream's health.
import type { components } from "./api/schema";

export type Stream = components["schemas"]["Stream"];
export type StreamConfig = components["schemas"]["StreamConfig"];
export type Kind = "webhook" | "splunk_hec" | "s3" | "datadog" | "sentinel";
export type Format = NonNullable<StreamConfig["format"]>;

/** formatLabel names the formats a stream delivers in. */
export const formatLabel: Record<Format, string> = { event: "Event JSON", ocsf: "OCSF 1.5.0" };

/** StreamForm is what the form holds: strings, as typed. */
export type StreamForm = {
  name: string; kind: Kind; format: Format; url: string; token: string; index: string; secret: string;
  bucket: string; prefix: string; filter: string; notify: string;
  dcr: string; streamName: string; azureTenant: string; clientId: string;
};

export const emptyForm = (): StreamForm => ({ name: "", kind: "splunk_hec", format: "event", url: "", token: "", index: "", secret: "", bucket: "", prefix: "", filter: "", notify: "",
  dcr: "", streamName: "", azureTenant: "", clientId: "" });

/** configOf turns the form into the API's configuration: only the
 * destination fields of its kind, empty ones left out, the notify list
 * split at commas and spaces. */
export function configOf(f: StreamForm): StreamConfig {
  const d: StreamConfig["destination"] = { kind: f.kind };
  const set = <K extends keyof StreamConfig["destination"]>(k: K, v: string) => { if (v.trim()) d[k] = v.trim() as StreamConfig["destination"][K]; };
  if (f.kind === "s3") {
    set("bucket", f.bucket);
    set("prefix", f.prefix);
  } else {
    set("url", f.url);
    if (f.kind === "splunk_hec") {
      set("token", f.token);
      set("index", f.index);
    } else if (f.kind === "datadog") set("token", f.token);
    else if (f.kind === "sentinel") {
      for (const k of ["dcr", "streamName", "azureTenant", "clientId", "secret"] as const) set(k, f[k]);
    } else set("secret", f.secret);
  }
  const c: StreamConfig = { name: f.name.trim(), destination: d };
  if (f.format !== "event") c.format = f.format;
  if (f.filter.trim()) c.filter = f.filter.trim();
  const notify = f.notify.split(/[\s,]+/).filter(Boolean);
  if (notify.length) c.notify = notify;
  return c;
}

/** formField is the form's field a problem's field names ("destination.url" → url). */
export function formField(field: string): keyof StreamForm | "other" {
  const f = field.replace(/^destination\./, "").replace(/\[\d+\]$/, "");
  const known: (keyof StreamForm)[] = ["name", "format", "url", "token", "index", "secret", "bucket", "prefix", "filter", "notify",
    "dcr", "streamName", "azureTenant", "clientId"];
  if (f === "kind") return "kind";
  return (known as string[]).includes(f) ? (f as keyof StreamForm) : "other";
}

/** fieldErrors groups a problem's errors by the form's fields. */
export function fieldErrors(errors: { field: string; message: string }[] | undefined): Partial<Record<keyof StreamForm | "other", string>> {
  const out: Partial<Record<keyof StreamForm | "other", string>> = {};
  for (const e of errors ?? []) {
    const k = formField(e.field);
    out[k] = out[k] ? `${out[k]}; ${e.message}` : e.message;
  }
  return out;
}

/** lagText says how far a stream is behind its tenant's log. */
export function lagText(s: Pick<Stream, "lag" | "state">): string {
  if (s.lag.events === 0) return "caught up";
  const secs = Math.round(s.lag.seconds);
  const since = secs >= 120 ? `${Math.round(secs / 60)} min` : `${secs} s`;
  return `${s.lag.events.toLocaleString("en")} events behind${secs > 0 ? `, for ${since}` : ""}`;
}

/** target is where a stream delivers, in a few words. */
export function target(d: Stream["destination"]): string {
  if (d.kind === "s3") return `s3://${d.bucket}/${d.prefix || "auditlog-streams"}`;
  return d.url ?? "";
}

export const kindLabel: Record<Kind, string> = { webhook: "Webhook", splunk_hec: "Splunk HEC", s3: "S3", datadog: "Datadog", sentinel: "Microsoft Sentinel" };
