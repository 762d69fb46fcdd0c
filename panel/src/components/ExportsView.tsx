import { Badge, Button, Group, Progress, Stack, Table, Text, Title } from "@mantine/core";
import { useEffect } from "react";
import { api, download, must, type AuditEvent, type ExportJob } from "../api/client";
import { auth } from "../auth";
import { criteria } from "../exportsInfo";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";

const active = (j: ExportJob) => j.state === "queued" || j.state === "running";
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Criteria shows an export's query as the filters it chose. */
function Criteria({ query, zone, askedAt }: { query: string; zone: string; askedAt?: string }) {
  const c = criteria(query, zone, askedAt);
  if (!c.length) return <Text size="xs" c="dimmed">Everything</Text>;
  return (
    <Group gap={4} data-testid="export-criteria">
      {c.map((x, i) => (
        // A long value (a time with its zone) wraps on a phone, never cut.
        <Badge key={i} variant="light" color="gray" tt="none" h="auto" styles={{ root: { maxWidth: "100%" }, label: { whiteSpace: "normal", overflow: "visible" } }}>{x.label}: {x.value}</Badge>
      ))}
    </Group>
  );
}

/** ExportsView lists the user's recent export jobs, with their criteria,
 * progress and, when done, the download; and the user's direct downloads
 * (the log's records of them: the file itself is not kept). It polls, so
 * a job queued from another tab appears without a reload. */
export function ExportsView() {
  const [zone] = useTimeZone();
  const jobs = useAsync(() => must(api.GET("/api/audit-logs/exports", { params: { query: { limit: 20 } } })), "exports");
  const me = auth.state().claims?.sub ?? "";
  const direct = useAsync(() => (uuid.test(me)
    ? must(api.GET("/api/audit-logs", { params: { query: { resourceType: ["audit_export"], actorId: me, action: ["access"], pageSize: 50 } } }))
    : Promise.resolve(undefined)), `direct ${me}`);
  const running = (jobs.data?.data ?? []).some(active);
  useEffect(() => {
    const t = setTimeout(() => { jobs.reload(); direct.reload(); }, running ? 2000 : 10_000);
    return () => clearTimeout(t);
  });
  if (jobs.error) return <ErrorState error={jobs.error} retry={jobs.reload} />;
  const list = jobs.data?.data ?? [];
  const syncs = (direct.data?.data ?? []).filter((e: AuditEvent) => (e.after as Record<string, unknown> | null)?.mode === "sync");
  return (
    <Stack data-testid="exports">
      <Title order={4}>Your recent exports</Title>
      {!list.length && !jobs.loading && <Text c="dimmed">No export job yet. Export from the Events view: exactly the filters on screen are exported.</Text>}
      <Table.ScrollContainer minWidth={0}>
        <Table layout="fixed">
          <Table.Tbody>
            {list.map((j) => (
              <Table.Tr key={j.id} data-testid="export-job">
                <Table.Td>
                  <Stack gap={4}>
                    <Group gap="xs">
                      <Text size="sm">{formatTime(j.createdAt, zone)}</Text>
                      <Badge color={j.state === "done" ? "teal.9" : j.state === "failed" ? "red.9" : "blue.9"}>{j.state}</Badge>
                      <Badge variant="outline" color="gray.8">{j.format === "jsonl" ? "JSON lines" : "CSV"}</Badge>
                    </Group>
                    <Criteria query={j.query} zone={zone} askedAt={j.createdAt} />
                    {active(j) && <Progress value={j.rowsExpected ? (100 * j.rowsWritten) / j.rowsExpected : 0} />}
                    <Text size="xs">{j.rowsWritten} / {j.rowsExpected} rows{j.error ? ` — ${j.error}` : ""}</Text>
                    <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: "anywhere" }}>{j.fileName}</Text>
                  </Stack>
                </Table.Td>
                <Table.Td w={120} style={{ verticalAlign: "top", textAlign: "right" }}>
                  {j.state === "done" && j.fileUrl && (
                    <Button size="xs" variant="light" onClick={() => void download(j.fileUrl!, j.fileName)} data-testid="export-download">Download</Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {syncs.length > 0 && (
        <>
          <Title order={5}>Direct downloads</Title>
          <Text size="xs" c="dimmed">Exports small enough to download at once: recorded in the log, the file itself is not kept.</Text>
          <Stack gap="xs" data-testid="direct-downloads">
            {syncs.map((e) => {
              const a = e.after as { rows?: number; query?: string; format?: string };
              return (
                <Stack key={e.id} gap={4} data-testid="direct-download">
                  <Group gap="xs">
                    <Text size="sm">{formatTime(e.timestamp, zone)}</Text>
                    <Badge variant="outline" color="gray.8">{a.format === "jsonl" ? "JSON lines" : "CSV"}</Badge>
                    <Text size="xs">{a.rows ?? 0} rows</Text>
                  </Group>
                  <Criteria query={a.query ?? ""} zone={zone} askedAt={e.timestamp} />
                </Stack>
              );
            })}
          </Stack>
        </>
      )}
    </Stack>
  );
}
