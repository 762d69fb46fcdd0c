// Where the panel's bearer token comes from, and when it stops working.
//
// Embedded (the normal case), the host application puts the panel in an
// iframe; the panel posts {type: "auditlog:ready"} to its parent, which
// answers {type: "auditlog:token", token} (and again with a fresh token
// whenever it likes). Only messages from the parent window are taken; the
// service's Content-Security-Policy frame-ancestors (AUDITLOG_PANEL_FRAME_
// ANCESTORS) says which hosts may embed it. For development, a URL
// fragment #token=<jwt> works too. The token is kept in sessionStorage
// only (gone with the tab), never in localStorage or a cookie.

const KEY = "auditlog.token";

export type Claims = { sub?: string; email?: string; role?: string; tenant?: string; exp?: number; reason?: string };

type State = { token: string | null; claims: Claims | null; expired: string | null; reason: string | null };

const REASON = "auditlog.reason";
let state: State = { token: null, claims: null, expired: null, reason: null };
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;

function emit() {
  for (const l of listeners) l();
}

/** decodeClaims reads a JWT's payload (not verified: the service does). */
export function decodeClaims(token: string): Claims | null {
  const part = token.split(".")[1];
  if (!part) return null;
  try {
    const json = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
    return JSON.parse(json) as Claims;
  } catch {
    return null;
  }
}

function set(token: string | null) {
  clearTimeout(timer);
  const claims = token ? decodeClaims(token) : null;
  if (token && !claims) {
    state = { token: null, claims: null, expired: "This is not a bearer token (a JWT).", reason: null };
    emit();
    return;
  }
  state = { token, claims, expired: null, reason: claims?.reason || sessionStorage.getItem(REASON) };
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  if (claims?.exp) {
    const ms = claims.exp * 1000 - Date.now();
    if (ms <= 0) state = { ...state, expired: "The token has expired." };
    else timer = setTimeout(() => auth.expire("The token has expired."), Math.min(ms, 2 ** 31 - 1));
  }
  emit();
}

/** fromFragment takes a token from the URL's #token= and removes it from
 * the address bar (and the history); false when there is none. */
function fromFragment(win: Window): boolean {
  const m = /(?:^#|&)token=([^&]+)/.exec(win.location.hash);
  if (!m?.[1]) return false;
  set(decodeURIComponent(m[1]));
  win.history.replaceState(win.history.state, "", win.location.pathname + win.location.search);
  return true;
}

export const auth = {
  token: () => (state.expired ? null : state.token),
  /** reason is the operator team's declared reason, sent with every
   * request as X-Access-Reason (the token's reason claim, or what the
   * superadmin typed for this session). */
  reason: () => state.reason,
  needsReason: () => state.claims?.role === "superadmin" && !state.reason,
  setReason(r: string) {
    sessionStorage.setItem(REASON, r);
    state = { ...state, reason: r };
    emit();
  },
  state: () => state,
  subscribe(l: () => void) {
    listeners.add(l);
    return () => listeners.delete(l);
  },
  set,
  expire(why: string) {
    if (state.expired) return;
    state = { ...state, expired: why };
    emit();
  },
  /** start takes the token from the fragment, the session or the host. */
  start(win: Window = window) {
    if (!fromFragment(win)) {
      const saved = win.sessionStorage.getItem(KEY);
      if (saved) set(saved);
    }
    // A #token= link followed in a tab that already shows the panel only
    // changes the fragment: take it, and take it out of the address bar.
    win.addEventListener("hashchange", () => fromFragment(win));
    win.addEventListener("message", (e: MessageEvent) => {
      if (e.source !== win.parent || win.parent === win) return;
      const d = e.data as { type?: string; token?: unknown };
      if (d?.type === "auditlog:token" && typeof d.token === "string") set(d.token);
    });
    if (win.parent !== win) win.parent.postMessage({ type: "auditlog:ready" }, "*");
  },
};
