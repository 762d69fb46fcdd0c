// The legal holds view's rules, apart from React so that they are tested
// alone: the form's fields to the API's hold, the API's field errors back
// to the form, and the words of a hold's state and of what its release
// lets retention delete.
import type { components } from "./api/schema";

export type Hold = components["schemas"]["LegalHold"];
export type HoldBody = components["schemas"]["LegalHoldBody"];

/** HoldRole is the token role that places, changes and releases holds;
 * a tenant's admins read them. */
export const HoldRole = "legal_hold";

/** HoldForm is what the form holds: strings, as typed (from and to as
 * the date inputs give them, YYYY-MM-DD, read as UTC days). */
export type HoldForm = { matter: string; reason: string; reference: string; from: string; to: string; q: string };

export const emptyHoldForm = (): HoldForm => ({ matter: "", reason: "", reference: "", from: "", to: "", q: "" });

/** formOf is a hold as the form shows it, to change it. */
export function formOf(h: Hold): HoldForm {
  const day = (t?: string) => (t ? t.slice(0, 10) : "");
  return { matter: h.matter, reason: h.reason, reference: h.reference ?? "", from: day(h.scope.from), to: day(h.scope.to), q: h.scope.q ?? "" };
}

/** bodyOf turns the form into the API's hold: empty members left out, a
 * day's from its start and to's day included (the scope's to is
 * exclusive, so it is the next day's start). */
export function bodyOf(f: HoldForm): HoldBody {
  const b: HoldBody = { matter: f.matter.trim(), reason: f.reason.trim(), scope: {} };
  if (f.reference.trim()) b.reference = f.reference.trim();
  if (f.from) b.scope!.from = `${f.from}T00:00:00Z`;
  if (f.to) {
    const next = new Date(`${f.to}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    b.scope!.to = next.toISOString().replace(".000Z", "Z");
  }
  if (f.q.trim()) b.scope!.q = f.q.trim();
  return b;
}

/** holdFieldErrors maps the API's field errors to the form's fields
 * (scope.from → from); the rest under "other". */
export function holdFieldErrors(errors: { field: string; message: string }[] | undefined): Partial<Record<keyof HoldForm | "other", string>> {
  const out: Partial<Record<keyof HoldForm | "other", string>> = {};
  for (const e of errors ?? []) {
    const f = e.field.replace(/^scope\./, "").split(/[.[]/)[0] ?? "";
    const k = (["matter", "reason", "reference", "from", "to", "q"].includes(f) ? f : "other") as keyof HoldForm | "other";
    out[k] = out[k] ? `${out[k]}; ${e.message}` : e.message;
  }
  return out;
}

/** scopeText says in words what a hold keeps. */
export function scopeText(h: Pick<Hold, "scope">, fmt: (t: string) => string): string {
  const s = h.scope;
  const range = s.from && s.to ? `from ${fmt(s.from)} to ${fmt(s.to)}` : s.from ? `from ${fmt(s.from)} on` : s.to ? `before ${fmt(s.to)}` : "all time";
  return s.q ? `events matching ${s.q}, ${range}` : `every event, ${range}`;
}

/** releaseText says what a release lets retention delete, and when. */
export function releaseText(h: Pick<Hold, "state" | "releaseAt" | "pastRetentionAt" | "overlapping">, fmt: (t: string) => string): string {
  if (h.state === "released" || !h.releaseAt) return "Released: retention deletes what it kept once past the plan's retention.";
  const n = h.pastRetentionAt.toLocaleString("en");
  const when = h.state === "releasing" ? `Released on ${fmt(h.releaseAt)}` : `Released now, it would stop holding on ${fmt(h.releaseAt)}`;
  const others = h.overlapping?.length ? ` (unless ${h.overlapping.length === 1 ? "another hold keeps some" : `${h.overlapping.length} other holds keep some`})` : "";
  return `${when}: retention may then delete ${n} of its events${others}.`;
}
