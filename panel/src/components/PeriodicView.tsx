import { Alert, Badge, Button, Code, CopyButton, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { useState, useSyncExternalStore } from "react";
import { api, authHeaders, download, must, saveBlob } from "../api/client";
import { auth } from "../auth";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";

type Settings = { enabled: "on" | "off" | "plan"; interval: "hourly" | "daily" };

/** verifyCommand is the exact command that checks the tenant's chain
 * offline against the service's keys and list of windows (docs/periodic-export.md,
 * "Verifying an export"), for a copy of the files in ./periodic-exports. */
export function verifyCommand(origin: string, tenant: string): string {
  return `auditlog verify --dir ./periodic-exports --tenant ${tenant} --api ${origin} --token "$TOKEN"`;
}

/** SettingsCard shows the tenant's periodic export; the operator team
 * (superadmin) changes it here, as `auditlog tenant periodic` does. */
function SettingsCard({ superadmin }: { superadmin: boolean }) {
  const [zone] = useTimeZone();
  const st = useAsync(() => must(api.GET("/api/audit-logs/periodic-exports/settings")), "periodic-settings");
  const [draft, setDraft] = useState<Settings | null>(null);
  const [error, setError] = useState<unknown>();
  if (st.error) return <ErrorState error={st.error} retry={st.reload} />;
  const s = st.data;
  if (!s) return null;
  const cur = draft ?? { enabled: s.enabled, interval: s.interval };
  const save = async () => {
    setError(undefined);
    try {
      await must(api.PUT("/api/audit-logs/periodic-exports/settings", { body: cur }));
      setDraft(null);
      st.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Stack gap="xs" data-testid="periodic-settings">
      <Group gap="xs">
        <Badge color={s.active ? "teal.9" : "gray.8"}>{s.active ? "exporting" : "not exporting"}</Badge>
        <Text size="sm">{s.interval} windows{s.nextWindow ? `, next from ${formatTime(s.nextWindow, zone)}` : ""}</Text>
      </Group>
      {s.lastError && <Alert color="red" title="The last pass failed">{s.lastError}</Alert>}
      {superadmin ? (
        <Group gap="sm" align="end">
          <SegmentedControl value={cur.enabled} onChange={(v) => setDraft({ ...cur, enabled: v as Settings["enabled"] })} aria-label="Periodic export"
            data={[{ value: "plan", label: "By plan" }, { value: "on", label: "On" }, { value: "off", label: "Off" }]} />
          <SegmentedControl value={cur.interval} onChange={(v) => setDraft({ ...cur, interval: v as Settings["interval"] })} aria-label="Window"
            data={[{ value: "daily", label: "Daily" }, { value: "hourly", label: "Hourly" }]} />
          <Button size="xs" disabled={!draft} onClick={() => void save()} data-testid="periodic-save">Save (recorded in the tenant's log)</Button>
        </Group>
      ) : (
        <Text size="xs" c="dimmed">On for Enterprise tenants; the operator team changes it.</Text>
      )}
      {error !== undefined && <ErrorState error={error} />}
    </Stack>
  );
}

/** LogCard is the tenant's verifiable log: the latest signed checkpoint,
 * the key that signs it, and how to check it (every plan has one). */
function LogCard({ tenant }: { tenant: string }) {
  const key = useAsync(async () => {
    const r = await fetch("/api/log-key");
    if (!r.ok) return null;
    const k = (await r.json()) as { verifierKey: string; earlierKeys?: string[] };
    return [k.verifierKey, ...(k.earlierKeys ?? [])].join(",");
  }, "log-key");
  const cp = useAsync(async () => {
    const r = await fetch("/api/log/checkpoint", { headers: authHeaders() });
    return r.ok ? r.text() : null;
  }, "log-checkpoint");
  if (!key.data) return null; // this store keeps no log
  const cmd = `auditlog log verify --tenant ${tenant} --key '${key.data}' --api ${location.origin} --token "$TOKEN"`;
  return (
    <Stack gap="xs" data-testid="log-card">
      <Title order={4}>Verifiable log</Title>
      <Text size="sm">Every event of this tenant is a leaf of its Merkle tree; the service signs a checkpoint of the tree about every second.
        An event's drawer shows its place, checked in your browser.</Text>
      <Code block style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} data-testid="log-checkpoint">{cp.data ?? "No event sealed yet."}</Code>
      <Text size="sm">The keys that sign it (keep a copy of your own: after a key rotation the new one comes first), and the check of the whole log through this
        service; add <Code>--save ./log-copy</Code> to keep what it read, and check that copy later, offline, with <Code>--dir ./log-copy</Code>:</Text>
      <Group gap="xs" wrap="nowrap" align="start">
        <Code block style={{ flex: 1, whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} data-testid="log-verify-command">{cmd}</Code>
        <CopyButton value={cmd}>{({ copied, copy }) => <Button size="compact-xs" variant="light" onClick={copy}>{copied ? "Copied" : "Copy"}</Button>}</CopyButton>
      </Group>
    </Stack>
  );
}

/** PeriodicView is the Enterprise periodic export: its settings, the
 * public keys and the command that verifies the files with them, and the
 * delivered windows, each file and digest downloadable. */
export function PeriodicView() {
  const [zone] = useTimeZone();
  const a = useSyncExternalStore(auth.subscribe, auth.state);
  const tenant = a.claims?.tenant ?? "<tenant>";
  const keys = useAsync(() => must(api.GET("/api/export-keys")), "export-keys");
  const [pages, setPages] = useState<string[]>([""]);
  const list = useAsync(() => must(api.GET("/api/audit-logs/periodic-exports", { params: { query: { pageSize: 20, ...(pages.at(-1) ? { cursor: pages.at(-1) } : {}) } } })), `periodic ${pages.at(-1)}`);
  const cmd = verifyCommand(location.origin, tenant);
  return (
    <Stack data-testid="periodic">
      <LogCard tenant={tenant} />
      <Title order={4}>Periodic export</Title>
      <SettingsCard superadmin={a.claims?.role === "superadmin"} />
      <Title order={5}>Verify the files</Title>
      <Text size="sm">
        Copy the files of your bucket into <Code>./periodic-exports</Code>, then check the whole chain against the keys below (the command fetches them and the list
        of delivered windows from this service; keep them apart from the files):
      </Text>
      <Group gap="xs" wrap="nowrap" align="start">
        <Code block style={{ flex: 1, whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} data-testid="verify-command">{cmd}</Code>
        <CopyButton value={cmd}>{({ copied, copy }) => <Button size="compact-xs" variant="light" onClick={copy}>{copied ? "Copied" : "Copy"}</Button>}</CopyButton>
      </Group>
      {keys.error ? <ErrorState error={keys.error} retry={keys.reload} /> : (
        <Stack gap={4} data-testid="export-keys">
          {(keys.data?.keys ?? []).map((k) => (
            <Group key={k.keyId} gap="xs">
              <Code>{k.keyId}</Code>
              {k.current && <Badge size="sm">signs new digests</Badge>}
              <Button size="compact-xs" variant="subtle" onClick={() => saveBlob(new Blob([k.publicKey], { type: "application/x-pem-file" }), `${k.keyId}.pem`)}>Download the public key</Button>
            </Group>
          ))}
        </Stack>
      )}
      <Title order={5}>Delivered windows</Title>
      {list.error ? <ErrorState error={list.error} retry={list.reload} /> : (
        <Table.ScrollContainer minWidth={0}>
          <Table layout="fixed" className="al-wrap">
            <Table.Tbody>
              {(list.data?.data ?? []).map((r) => (
                <Table.Tr key={r.digestKey} data-testid="periodic-window">
                  <Table.Td>
                    <Text size="sm">{formatTime(r.windowStart, zone)} → {formatTime(r.windowEnd, zone)}{r.late ? ` (late file ${r.late})` : ""}</Text>
                    <Text size="xs" c="dimmed">{r.count} events · signed by {r.keyId} · delivered {formatTime(r.deliveredAt, zone)}</Text>
                  </Table.Td>
                  <Table.Td w={150} style={{ textAlign: "right" }}>
                    <Stack gap={4} align="flex-end">
                      <Button size="compact-xs" variant="light" onClick={() => void download(r.links.data, r.dataKey.split("/").pop()!)}>Data file</Button>
                      <Button size="compact-xs" variant="subtle" onClick={() => void download(r.links.digest, r.digestKey.split("/").pop()!)}>Signed digest</Button>
                    </Stack>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {!list.loading && !list.data?.data.length && <Text c="dimmed" size="sm">No window delivered yet: Enterprise tenants get one per closed window.</Text>}
      <Group>
        {pages.length > 1 && <Button size="xs" variant="subtle" onClick={() => setPages(pages.slice(0, -1))}>Newer windows</Button>}
        {list.data?.nextCursor && <Button size="xs" variant="subtle" onClick={() => setPages([...pages, list.data!.nextCursor!])}>Older windows</Button>}
      </Group>
    </Stack>
  );
}
