import { Badge, Button, Checkbox, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useState, useSyncExternalStore } from "react";
import { api, must, type Comparison, type HistoryEntry, type Restore } from "../api/client";
import { auth } from "../auth";
import { show } from "../state";
import { formatTime, useTimeZone } from "../time";
import { ErrorState } from "./ErrorState";
import { FieldName } from "./FieldName";
import { RestoreStatus, RestoreVersion, canRestore } from "./RestorePanel";
import { useAsync } from "../useAsync";

/** History lists a resource's versions, newest first; ticking two
 * compares them side by side. An admin restores a version from its row
 * or from the comparison (RestoreVersion); onDialog says when that
 * dialog is open, onChanged when the versions may have changed. */
export function History({ type, resourceId, current, refresh = 0, onDialog, onChanged }: {
  type: string; resourceId: string; current: string; refresh?: number; onDialog?: (open: boolean) => void; onChanged?: () => void;
}) {
  const [zone] = useTimeZone();
  const role = useSyncExternalStore(auth.subscribe, auth.state).claims?.role;
  const [restoring, setRestoringState] = useState<string | null>(null);
  const [done, setDone] = useState<Restore | null>(null);
  const setRestoring = (id: string | null) => {
    setRestoringState(id);
    onDialog?.(id !== null);
  };
  const restore = (h: HistoryEntry, label: string) =>
    canRestore(role) && h.hasState && h.eventId !== entries[0]?.eventId && (
      <Button size="compact-xs" variant="subtle" onClick={() => setRestoring(h.eventId)} aria-label={`Restore the version of ${formatTime(h.timestamp, zone)}`} data-testid="restore-version">{label}</Button>
    );
  const [extra, setExtra] = useState<{ entries: HistoryEntry[]; cursor?: string | null }>({ entries: [] });
  const first = useAsync(() => must(api.GET("/api/resources/{type}/{id}/history", { params: { path: { type, id: resourceId }, query: { pageSize: 20 } } })), `${type}/${resourceId}/${refresh}`);
  const [picked, setPicked] = useState<string[]>([]);
  const [cmp, setCmp] = useState<{ data?: Comparison; error?: unknown }>({});
  if (first.error) return <ErrorState error={first.error} retry={first.reload} />;
  const entries = [...(first.data?.data ?? []), ...extra.entries];
  const cursor = extra.entries.length ? extra.cursor : first.data?.nextCursor;
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));
  const compare = async () => {
    // The older of the two is the base.
    const [a, b] = [...picked].sort((x, y) => entries.findIndex((e) => e.eventId === y) - entries.findIndex((e) => e.eventId === x));
    try {
      setCmp({ data: await must(api.GET("/api/resources/{type}/{id}/compare", { params: { path: { type, id: resourceId }, query: { base: a!, target: b! } } })) });
    } catch (error) {
      setCmp({ error });
    }
  };
  const more = async () => {
    const r = await must(api.GET("/api/resources/{type}/{id}/history", { params: { path: { type, id: resourceId }, query: { pageSize: 20, cursor: cursor ?? undefined } } }));
    setExtra((x) => ({ entries: [...x.entries, ...r.data], cursor: r.nextCursor }));
  };
  return (
    <Stack gap="xs" data-testid="history">
      <Title order={5}>Versions of this {type}</Title>
      <Table layout="fixed" className="al-wrap">
        <Table.Tbody>
          {entries.map((h) => (
            <Table.Tr key={h.eventId} data-testid="version">
              <Table.Td w={36}><Checkbox checked={picked.includes(h.eventId)} disabled={!h.hasState} onChange={() => toggle(h.eventId)} aria-label={`compare ${h.eventId}`} /></Table.Td>
              <Table.Td>
                {formatTime(h.timestamp, zone)}
                {/* On a phone who made the version and what changed go
                    under its time, in one wide column. */}
                <div className="al-phone-only" data-testid="version-actor">{h.actor.email}</div>
                <div className="al-phone-only"><Text size="xs" ff="monospace">{h.changedFields.join(", ")}</Text></div>
              </Table.Td>
              <Table.Td className="al-wide">{h.actor.email}</Table.Td>
              <Table.Td w={130}>
                <Stack gap={2} align="flex-start">
                  <Badge variant="light">{h.action}</Badge>
                  {h.eventId === current && <Badge>this event</Badge>}
                  {h.restoredFrom && <Badge color={h.outcome === "failure" ? "red.9" : "teal.9"}>{h.outcome === "failure" ? "refused" : "restored"}</Badge>}
                  {restore(h, "Restore")}
                </Stack>
              </Table.Td>
              <Table.Td className="al-wide"><Text size="xs" ff="monospace">{h.changedFields.join(", ")}</Text></Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group>
        <Button size="xs" disabled={picked.length !== 2} onClick={compare} data-testid="compare">Compare the two ticked versions</Button>
        {cursor && <Button size="xs" variant="subtle" onClick={more}>Older versions</Button>}
      </Group>
      {cmp.error !== undefined && <ErrorState error={cmp.error} />}
      {cmp.data && (
        <Group gap="xs" data-testid="comparison-restore">
          {restore(cmp.data.base, `Restore the version of ${formatTime(cmp.data.base.timestamp, zone)}`)}
          {restore(cmp.data.target, `Restore the version of ${formatTime(cmp.data.target.timestamp, zone)}`)}
        </Group>
      )}
      {restoring && <RestoreVersion eventId={restoring} onClose={() => setRestoring(null)} onConflict={() => onChanged?.()}
        onDone={(r) => { setDone(r); setRestoring(null); }} />}
      {done && <RestoreStatus first={done} onFinal={() => onChanged?.()} />}
      {cmp.data && (
        <Table withTableBorder layout="fixed" className="al-wrap" data-testid="comparison">
          <Table.Thead>
            <Table.Tr><Table.Th w="24%">Field</Table.Th><Table.Th>{formatTime(cmp.data.base.timestamp, zone)}</Table.Th><Table.Th>{formatTime(cmp.data.target.timestamp, zone)}</Table.Th><Table.Th w={86}>Change</Table.Th></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {cmp.data.fields.map((f) => (
              <Table.Tr key={f.path}>
                <Table.Td ff="monospace"><FieldName name={f.path} /></Table.Td>
                <Table.Td ff="monospace">{show(f.base, f.base !== null)}</Table.Td>
                <Table.Td ff="monospace">{show(f.target, f.target !== null)}</Table.Td>
                <Table.Td><Badge size="xs">{f.change}</Badge></Table.Td>
              </Table.Tr>
            ))}
            {!cmp.data.fields.length && <Table.Tr><Table.Td colSpan={4}>The two versions are the same.</Table.Td></Table.Tr>}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
