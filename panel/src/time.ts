// Times are shown in one IANA time zone, the viewer's by default, chosen
// in the header and kept in the browser (localStorage): every time on
// screen and every time typed (the custom From and To) is in that zone,
// and the instant in UTC is on hover. The zone arithmetic is the
// browser's (Intl.DateTimeFormat), so its tz database decides offsets and
// daylight-saving changes; nothing here knows a zone's rules.
import { useSyncExternalStore } from "react";

const KEY = "auditlog.zone";
const listeners = new Set<() => void>();

/** browserZone is the zone the browser runs in. */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** isZone reports whether the browser knows the IANA zone name z. */
export function isZone(z: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: z });
    return true;
  } catch {
    return false;
  }
}

let known: string[] | undefined;

/** zones lists the IANA zones the browser knows, UTC first: one array,
 * built once, so the header's picker does not rebuild its 400 options on
 * every render of the first view. */
export function zones(): string[] {
  if (!known) {
    const all = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
    known = ["UTC", ...all.filter((z) => z !== "UTC")];
  }
  return known;
}

function storedZone(): string {
  const z = localStorage.getItem(KEY);
  return z && isZone(z) ? z : browserZone();
}

/** useTimeZone is the chosen zone and its setter. */
export function useTimeZone(): [string, (zone: string) => void] {
  const zone = useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, storedZone);
  return [zone, (z) => {
    if (!isZone(z)) return;
    localStorage.setItem(KEY, z);
    listeners.forEach((l) => l());
  }];
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const formats = new Map<string, Intl.DateTimeFormat>();

/** wallClock is the date and time the clocks of zone show at instant ms. */
function wallClock(ms: number, zone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
    });
    formats.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const x of f.formatToParts(new Date(ms))) p[x.type] = Number(x.value);
  const n = (k: string) => p[k] ?? 0;
  return { y: n("year"), mo: n("month"), d: n("day"), h: n("hour"), mi: n("minute"), s: n("second") };
}

/** offsetMinutes is zone's offset from UTC at instant ms, in minutes. */
export function offsetMinutes(ms: number, zone: string): number {
  const w = wallClock(ms, zone);
  return Math.round((Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000) / 60_000);
}

const offsetLabel = (off: number) => `UTC${off >= 0 ? "+" : "-"}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;

/** formatTime shows an ISO instant in zone: "2026-11-11 00:00:00 UTC-08:00",
 * or "… UTC" in UTC. */
export function formatTime(iso: string, zone: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const w = wallClock(ms, zone);
  const off = offsetMinutes(ms, zone);
  return `${w.y}-${pad(w.mo)}-${pad(w.d)} ${pad(w.h)}:${pad(w.mi)}:${pad(w.s)} ${zone === "UTC" ? "UTC" : offsetLabel(off)}`;
}

/** formatUTC shows an ISO instant in UTC (the hover of a time). */
export const formatUTC = (iso: string) => formatTime(iso, "UTC");

/** toZonedInput is the value of a datetime-local input showing the ISO
 * instant in zone ("2026-11-11T00:00"). */
export function toZonedInput(iso: string | undefined, zone: string): string {
  if (!iso || Number.isNaN(Date.parse(iso))) return "";
  const w = wallClock(Date.parse(iso), zone);
  return `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}`;
}

/** fromZonedInput is the UTC instant of the wall-clock time v
 * ("2026-11-11T00:00", seconds optional) in zone. A time that a
 * daylight-saving change skips is read with the offset before the
 * change; one it repeats is its first occurrence. */
export function fromZonedInput(v: string, zone: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(v);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, sec);
  // The two offsets in force within a day either side are the only
  // candidates; the earliest instant that shows this wall time wins.
  const before = offsetMinutes(wall - 86_400_000, zone);
  const offs = [before, offsetMinutes(wall + 86_400_000, zone)];
  const fits = offs.map((o) => wall - o * 60_000).filter((ms) => offsetMinutes(ms, zone) * 60_000 === wall - ms).sort((a, b) => a - b);
  const ms = fits[0] ?? wall - before * 60_000;
  return new Date(ms).toISOString();
}
