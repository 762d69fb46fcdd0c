// Times are shown in the viewer's time zone by default, or UTC with the
// switch (kept in the session); the other one is on hover.
import { useSyncExternalStore } from "react";

const KEY = "auditlog.utc";
const listeners = new Set<() => void>();

export function useTimeZone(): [boolean, (utc: boolean) => void] {
  const utc = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => sessionStorage.getItem(KEY) === "1",
  );
  return [utc, (v) => {
    sessionStorage.setItem(KEY, v ? "1" : "0");
    listeners.forEach((l) => l());
  }];
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** formatTime shows an ISO instant in UTC or in the local zone. */
export function formatTime(iso: string, utc: boolean): string {
  const d = new Date(iso);
  if (utc) return iso.replace("T", " ").replace(/\.\d{3}Z$/, " UTC");
  const off = -d.getTimezoneOffset();
  const zone = `UTC${off >= 0 ? "+" : "-"}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone}`;
}
