import { Alert, Anchor, Badge, Button, Group, Progress, Stack, Table, Text, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { ApiError, api, authHeaders, download, must, saveBlob, type ExportJob } from "../api/client";
import { auth } from "../auth";
import { apiQuery, type Filters } from "../filters";
import { navigate } from "../location";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";

/** ExportButton exports exactly the filters on screen: up to the sync
 * limit the CSV downloads at once; above, the service queues a job and
 * e-mails its link, and the Exports view follows it. */
export function ExportButton({ filters, now }: { filters: Filters; now: Date; total?: number }) {
  const [busy, setBusy] = useState(false);
  const [job, setJob] = useState<ExportJob | null>(null);
  const [error, setError] = useState<unknown>();
  const run = async () => {
    setBusy(true);
    setError(undefined);
    setJob(null);
    try {
      const q = new URLSearchParams(Object.entries({ ...apiQuery(filters, now), sort: filters.sort, ...(filters.order ? { order: filters.order } : {}) }).map(([k, v]) => [k, String(v)]));
      const res = await fetch(`/api/audit-logs/exports?${q}`, { method: "POST", headers: authHeaders() });
      if (res.status === 401) auth.expire("The service refused the token (expired or invalid).");
      if (res.status === 202) setJob((await res.json()) as ExportJob);
      else if (res.ok) saveBlob(await res.blob(), `audit-log-${now.toISOString().slice(0, 10)}.csv`);
      else throw new ApiError(res.status, await res.json().catch(() => undefined));
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Button onClick={run} loading={busy} data-testid="export">Export CSV</Button>
      {job && (
        <Alert color="blue" data-testid="export-queued" title="Export queued">
          Too many events to download at once ({job.rowsExpected}): the export runs in the background and you will get an e-mail with
          the link when it is done.{" "}
          <Anchor component="button" type="button" onClick={() => navigate("?view=exports")}>Follow it in Exports</Anchor>
        </Alert>
      )}
      {error !== undefined && <ErrorState error={error} />}
    </Stack>
  );
}

const active = (j: ExportJob) => j.state === "queued" || j.state === "running";

/** ExportsView lists the user's recent export jobs, with their progress
 * and, when done, the download. */
export function ExportsView() {
  const [utc] = useTimeZone();
  const jobs = useAsync(() => must(api.GET("/api/audit-logs/exports", { params: { query: { limit: 20 } } })), "exports");
  const running = (jobs.data?.data ?? []).some(active);
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(jobs.reload, 2000);
    return () => clearTimeout(t);
  });
  if (jobs.error) return <ErrorState error={jobs.error} retry={jobs.reload} />;
  const list = jobs.data?.data ?? [];
  return (
    <Stack data-testid="exports">
      <Title order={4}>Your recent exports</Title>
      {!list.length && !jobs.loading && <Text c="dimmed">No export yet. Export from the Events view: exactly the filters on screen are exported.</Text>}
      <Table>
        <Table.Tbody>
          {list.map((j) => (
            <Table.Tr key={j.id} data-testid="export-job">
              <Table.Td>{formatTime(j.createdAt, utc)}</Table.Td>
              <Table.Td><Badge color={j.state === "done" ? "teal.9" : j.state === "failed" ? "red.9" : "blue.9"}>{j.state}</Badge></Table.Td>
              <Table.Td w={240}>
                {active(j) && <Progress value={j.rowsExpected ? (100 * j.rowsWritten) / j.rowsExpected : 0} />}
                <Text size="xs">{j.rowsWritten} / {j.rowsExpected} rows{j.error ? ` — ${j.error}` : ""}</Text>
              </Table.Td>
              <Table.Td><Text size="xs" ff="monospace">{j.query || "(everything)"}</Text></Table.Td>
              <Table.Td>
                <Group>
                  {j.state === "done" && j.fileUrl && (
                    <Button size="xs" variant="light" onClick={() => download(j.fileUrl!, `audit-log-${j.id}.csv.gz`)}>Download</Button>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
