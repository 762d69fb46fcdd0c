import { Button, CopyButton, Group } from "@mantine/core";
import "./JsonTree.css";
import { FieldName } from "./FieldName";

/** Node is one value of the tree: an object or array folds (a native
 * <details>, so the keyboard and screen readers know it), a leaf shows
 * its JSON. Levels below open start folded. */
function Node({ name, value, depth, open }: { name?: string; value: unknown; depth: number; open: number }) {
  const key = name !== undefined ? <span className="al-json-key"><FieldName name={name} />: </span> : null;
  if (value === null || typeof value !== "object") {
    return <div className="al-json-leaf">{key}<span className={`al-json-${value === null ? "null" : typeof value}`}>{JSON.stringify(value)}</span></div>;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  const [l, r] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (!entries.length) return <div className="al-json-leaf">{key}{l}{r}</div>;
  return (
    <details open={depth < open} className="al-json-node">
      <summary>{key}{l}<span className="al-json-count">{entries.length} {Array.isArray(value) ? "items" : "fields"}</span>{r}</summary>
      <div className="al-json-children">
        {entries.map(([k, v]) => <Node key={k} name={k} value={v} depth={depth + 1} open={open} />)}
      </div>
    </details>
  );
}

/** JsonTree shows a JSON value as a collapsible tree, with a button that
 * copies the whole of it, indented. */
export function JsonTree({ value, open = 2, label }: { value: unknown; open?: number; label: string }) {
  return (
    <div className="al-json" data-testid="event-json">
      <Group justify="flex-end" mb={4}>
        <CopyButton value={JSON.stringify(value, null, 2)}>
          {({ copied, copy }) => <Button size="compact-xs" variant="light" onClick={copy} data-testid="copy-json">{copied ? "Copied" : `Copy ${label}`}</Button>}
        </CopyButton>
      </Group>
      <Node value={value} depth={0} open={open} />
    </div>
  );
}
