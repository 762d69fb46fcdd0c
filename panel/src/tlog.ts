// The verifiable log, checked in the browser: the event's leaf hash is
// computed here from the event the API returned (its canonical encoding,
// docs/verifiable-log.md), the inclusion proof is run here (RFC 9162
// §2.1.3.2) against the root of the signed checkpoint, and the
// checkpoint's Ed25519 signature is checked here when the browser has
// Ed25519 in WebCrypto. Nothing the server says about validity is taken.

type Json = null | boolean | string | { num: string } | Json[] | { [k: string]: Json };

/** parse reads JSON keeping each number's literal text (Go's encoding
 * keeps it, JSON.parse would not: 1.50 stays 1.50). */
export function parse(text: string): Json {
  let i = 0;
  const ws = () => { while (" \t\n\r".includes(text[i] ?? "x")) i++; };
  const value = (): Json => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const o: { [k: string]: Json } = {};
      ws();
      if (text[i] === "}") { i++; return o; }
      for (;;) {
        ws();
        const k = value() as string;
        ws();
        i++; // :
        o[k] = value();
        ws();
        if (text[i++] === "}") return o;
      }
    }
    if (c === "[") {
      i++;
      const a: Json[] = [];
      ws();
      if (text[i] === "]") { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[i++] === "]") return a;
      }
    }
    if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
      i++;
      return JSON.parse(text.slice(start, i)) as string;
    }
    const m = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!m) throw new Error(`not JSON at ${i}`);
    i += m[0].length;
    return m[0] === "true" ? true : m[0] === "false" ? false : m[0] === "null" ? null : { num: m[0] };
  };
  return value();
}

const utf8 = new TextEncoder();

/** byteOrder compares two strings by their UTF-8 bytes, as Go sorts keys. */
function byteOrder(a: string, b: string): number {
  const x = utf8.encode(a), y = utf8.encode(b);
  for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
  return x.length - y.length;
}

/** quote escapes a string as Go's encoding/json does without HTML
 * escaping (JSON.stringify does the same but for U+2028 and U+2029). */
const quote = (s: string) => JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

/** canonical is the leaf encoding auditlog-event-v1 of a JSON text. */
export function canonical(v: Json): string {
  if (v === null || typeof v === "boolean") return String(v);
  if (typeof v === "string") return quote(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if ("num" in v && typeof v.num === "string" && Object.keys(v).length === 1) return v.num;
  const o = v as { [k: string]: Json };
  return `{${Object.keys(o).sort(byteOrder).map((k) => `${quote(k)}:${canonical(o[k]!)}`).join(",")}}`;
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) { all.set(p, off); off += p.length; }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}

/** leafHashV1 is SHA-256 of 0x00 then the event's canonical encoding:
 * the leaf of an event sealed before the entry format. */
export const leafHashV1 = (eventJSON: string) => sha256(new Uint8Array([0]), utf8.encode(canonical(parse(eventJSON))));

/** leafHash is the event's leaf (auditlog-event-v2): SHA-256 of 0x00
 * then its entry, "auditlog-event-v2\n<id>\n<base64 SHA-256 of the
 * canonical encoding>\n" (docs/event.md, "Canonical encoding"). */
export async function leafHash(eventJSON: string): Promise<Uint8Array> {
  const digest = await sha256(utf8.encode(canonical(parse(eventJSON))));
  const id = (JSON.parse(eventJSON) as { id: string }).id;
  const entry = `auditlog-event-v2\n${id}\n${btoa(String.fromCharCode(...digest))}\n`;
  return sha256(new Uint8Array([0]), utf8.encode(entry));
}
const nodeHash = (l: Uint8Array, r: Uint8Array) => sha256(new Uint8Array([1]), l, r);

export const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** rootFromInclusion runs an inclusion proof (RFC 9162 §2.1.3.2) and
 * returns the root it leads to, or null when the proof's shape is wrong. */
export async function rootFromInclusion(index: number, size: number, leaf: Uint8Array, proof: Uint8Array[]): Promise<Uint8Array | null> {
  if (index >= size) return null;
  let fn = index, sn = size - 1, r = leaf;
  for (const p of proof) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** Checked is what the browser found. */
export type Checked = { ok: boolean; size: number; index: number; signature: "valid" | "invalid" | "unchecked"; why?: string };

/** checkpointParts splits a signed note: the signed text, the origin,
 * size and root, and the signatures (key name and base64). */
export function checkpointParts(note: string) {
  const [text = "", sigs = ""] = note.split("\n\n");
  const [origin = "", size = "", root = ""] = text.split("\n");
  const signatures = sigs.split("\n").filter(Boolean).map((l) => { const m = /^— (\S+) (\S+)$/.exec(l); return m ? { name: m[1]!, sig: m[2]! } : null; })
    .filter((x): x is { name: string; sig: string } => x !== null);
  return { text: `${text}\n`, origin, size: Number(size), root, signatures };
}

/** verifySignature checks the note's Ed25519 signature by the verifier
 * key (note's text form "<name>+<hash>+<base64 of 0x01 and the key>"). */
export async function verifySignature(note: string, vkey: string): Promise<"valid" | "invalid" | "unchecked"> {
  // The key's base64 may itself hold "+": it is everything after the
  // second one (a name holds no "+", the hash is 8 hex digits).
  const m = /^([^+]+)\+[0-9a-f]{8}\+([A-Za-z0-9+/=]+)$/.exec(vkey);
  if (!m) return "invalid";
  const [, name, key64] = m;
  const cp = checkpointParts(note);
  // A tenant's checkpoint is signed under its origin's name; a key of
  // the deployment's name covers every tenant's origin (audit/logkeys.go).
  const covers = (n: string) => n === name || (!name!.includes("/tenants/") && n === cp.origin && n.startsWith(`${name}/tenants/`));
  const s = cp.signatures.find((x) => covers(x.name));
  if (!s) return "invalid";
  let key: Uint8Array<ArrayBuffer>, sig: Uint8Array<ArrayBuffer>;
  try {
    key = b64(key64!).slice(1);
    sig = b64(s.sig).slice(4);
  } catch {
    return "invalid"; // not base64
  }
  try {
    const pub = await crypto.subtle.importKey("raw", key, { name: "Ed25519" }, false, ["verify"]);
    return (await crypto.subtle.verify({ name: "Ed25519" }, pub, sig, utf8.encode(cp.text))) ? "valid" : "invalid";
  } catch {
    return "unchecked"; // this browser has no Ed25519 in WebCrypto
  }
}

/** checkInclusion checks that the event (its JSON as the API returned
 * it) is in the tree of the signed checkpoint, by the proof. */
/** verifyCosignature checks a witness's cosignature of the note (C2SP
 * tlog-cosignature, cosignature/v1) by its key (note's text form, key
 * algorithm 0x04): the signature line holds the key hash, an 8-byte
 * time, and the Ed25519 signature of "cosignature/v1\ntime <t>\n" and
 * the checkpoint. */
export async function verifyCosignature(note: string, vkey: string): Promise<"valid" | "invalid" | "unchecked"> {
  const m = /^([^+]+)\+[0-9a-f]{8}\+([A-Za-z0-9+/=]+)$/.exec(vkey);
  if (!m) return "invalid";
  const [, name, key64] = m;
  const cp = checkpointParts(note);
  const s = cp.signatures.find((x) => x.name === name);
  if (!s) return "invalid";
  let key: Uint8Array<ArrayBuffer>, raw: Uint8Array<ArrayBuffer>;
  try {
    key = b64(key64!);
    raw = b64(s.sig);
  } catch {
    return "invalid";
  }
  if (key[0] !== 4 || key.length !== 33 || raw.length !== 4 + 8 + 64) return "invalid";
  const time = new DataView(raw.buffer, raw.byteOffset + 4, 8).getBigUint64(0);
  const msg = utf8.encode(`cosignature/v1\ntime ${time}\n${cp.text}`);
  try {
    const pub = await crypto.subtle.importKey("raw", key.slice(1), { name: "Ed25519" }, false, ["verify"]);
    return (await crypto.subtle.verify({ name: "Ed25519" }, pub, raw.slice(12), msg)) ? "valid" : "invalid";
  } catch {
    return "unchecked";
  }
}

export async function checkInclusion(eventJSON: string, p: { leafIndex: number; treeSize: number; proof: string[]; checkpoint: string }, vkey: string): Promise<Checked> {
  const cp = checkpointParts(p.checkpoint);
  const base = { size: cp.size, index: p.leafIndex };
  if (cp.size !== p.treeSize) return { ...base, ok: false, signature: "unchecked", why: "the proof is not for the checkpoint's tree" };
  const signature = await verifySignature(p.checkpoint, vkey);
  // The leaf of the entry format, or of an event sealed before it (v1).
  let root = await rootFromInclusion(p.leafIndex, p.treeSize, await leafHash(eventJSON), p.proof.map(b64));
  if (!root || !same(root, b64(cp.root))) root = await rootFromInclusion(p.leafIndex, p.treeSize, await leafHashV1(eventJSON), p.proof.map(b64));
  if (!root || !same(root, b64(cp.root))) return { ...base, ok: false, signature, why: "the proof does not lead to the signed root" };
  if (signature === "invalid") return { ...base, ok: false, signature, why: "the checkpoint's signature is not the log key's" };
  return { ...base, ok: true, signature };
}

/** verifyConsistency runs a consistency proof (RFC 9162 §2.1.4.2): that
 * the tree of size second, root secondRoot, extends the tree of size
 * first, root firstRoot. */
export async function verifyConsistency(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: Uint8Array[]): Promise<boolean> {
  if (first > second || first === 0) return false;
  if (first === second) return proof.length === 0 && same(firstRoot, secondRoot);
  let path = proof;
  if ((first & (first - 1)) === 0) path = [firstRoot, ...proof]; // first is a power of two
  if (path.length === 0) return false;
  let fn = first - 1, sn = second - 1;
  while (fn % 2 === 1) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
  let fr = path[0]!, sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(fr, firstRoot) && same(sr, secondRoot);
}

/** Kept is the largest checkpoint this browser verified of a log. */
export type Kept = { size: number; root: string };

/** Store is where the browser keeps what it verified: localStorage in
 * the panel, a map in tests. */
export type Store = { getItem(k: string): string | null; setItem(k: string, v: string): void };

/** keptKey names a log's entry: its origin and the key its checkpoints
 * verified under. Another log of the same origin under another key (a
 * deployment started afresh) is another entry, never a rollback of this
 * one; an insider cannot use that, the key is the service's
 * configuration. */
const keptKey = (origin: string, key: string) => `auditlog.verified:${origin}:${key}`;

/** rollback checks a verified checkpoint (origin, size, root in base64)
 * against the largest one this browser verified of that log (under the
 * verifier key key) before, and
 * keeps the larger (issue 53): a smaller tree, another tree of the same
 * size, or a tree not joined to the kept one by the service's
 * consistency proof (prove(from, to): its base64 hashes, null when the
 * service gives none) is a rollback, and the reason is returned; null
 * when the log only moved on. */
export async function rollback(store: Store, cp: { origin: string; size: number; root: string }, key: string,
  prove: (from: number, to: number) => Promise<string[] | null>): Promise<string | null> {
  const raw = store.getItem(keptKey(cp.origin, key));
  const kept = raw ? (JSON.parse(raw) as Kept) : null;
  if (kept && kept.size === cp.size && kept.root !== cp.root) return `another tree of the ${cp.size} events this browser verified before (a fork)`;
  if (kept && kept.size !== cp.size) {
    const [a, b] = kept.size < cp.size ? [kept, cp] : [cp, kept];
    const proof = await prove(a.size, b.size);
    if (!proof || !(await verifyConsistency(a.size, b.size, b64(a.root), b64(b.root), proof.map(b64)))) {
      return kept.size > cp.size
        ? `this browser verified a checkpoint of ${kept.size} events before; the service now shows ${cp.size} and cannot prove it is an earlier state of that log (a rollback)`
        : `the log of ${cp.size} events does not extend the ${kept.size} this browser verified before`;
    }
  }
  if (!kept || cp.size > kept.size) store.setItem(keptKey(cp.origin, key), JSON.stringify({ size: cp.size, root: cp.root }));
  return null;
}
