// A resource state as field paths, in the grammar of the service's diff,
// history and compare (audit.DeepDiff): object keys joined by dots, and
// "[<id>]" for an element of an array whose elements are all objects with
// a unique "id"; any other array is one field. The restore's `fields`
// take these paths.

export type Flat = Map<string, unknown>;

function keyedById(a: unknown[]): boolean {
  if (a.length === 0) return false;
  const ids = new Set<string>();
  for (const x of a) {
    if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
    const id = (x as Record<string, unknown>).id;
    if (typeof id !== "string" && typeof id !== "number") return false;
    ids.add(String(id));
  }
  return ids.size === a.length;
}

/** flatten lists every leaf of v by path. */
export function flatten(v: unknown, prefix = "", out: Flat = new Map()): Flat {
  if (typeof v === "object" && v !== null && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.set(prefix, {});
    for (const [k, x] of entries) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(v) && keyedById(v)) {
    for (const x of v) flatten(x, `${prefix}[${String((x as Record<string, unknown>).id)}]`, out);
  } else if (prefix) {
    out.set(prefix, v);
  }
  return out;
}

export type Row = { path: string; left: unknown; right: unknown; changed: boolean; leftHas: boolean; rightHas: boolean };

/** sideBySide pairs the paths of two states, sorted, marking the changed. */
export function sideBySide(left: unknown, right: unknown): Row[] {
  const l = flatten(left);
  const r = flatten(right);
  const paths = [...new Set([...l.keys(), ...r.keys()])].sort();
  return paths.map((path) => {
    const a = l.get(path);
    const b = r.get(path);
    return { path, left: a, right: b, leftHas: l.has(path), rightHas: r.has(path), changed: l.has(path) !== r.has(path) || JSON.stringify(a) !== JSON.stringify(b) };
  });
}

/** show renders a field value in one line. */
export function show(v: unknown, has = true): string {
  if (!has) return "—";
  if (typeof v === "string") return v.startsWith("masked:v1:") ? "•••• (secret)" : JSON.stringify(v);
  return JSON.stringify(v);
}

/** diffSides are an event's diff as two states, field by field: what
 * each changed field was and became, a null (created, deleted) left out
 * so that it shows as "—". */
export function diffSides(diff: Record<string, { from?: unknown; to?: unknown }> | undefined): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [k, c] of Object.entries(diff ?? {})) {
    if (c.from !== null && c.from !== undefined) before[k] = c.from;
    if (c.to !== null && c.to !== undefined) after[k] = c.to;
  }
  return { before, after };
}
