import { Badge, Button, Group, Progress, Stack, Table, Text, Title } from "@mantine/core";
import { useEffect } from "react";
import { api, download, must, type ExportJob } from "../api/client";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";

const active = (j: ExportJob) => j.state === "queued" || j.state === "running";

/** ExportsView lists the user's recent export jobs, with their progress
 * and, when done, the download. */
export function ExportsView() {
  const [zone] = useTimeZone();
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
              <Table.Td>{formatTime(j.createdAt, zone)}</Table.Td>
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
