import { Alert, Anchor, Button, Group, Stack } from "@mantine/core";
import { useState } from "react";
import { ApiError, authHeaders, saveBlob, type ExportJob } from "../api/client";
import { auth } from "../auth";
import { attachmentName } from "../exportsInfo";
import { apiQuery, type Filters } from "../filters";
import { navigate } from "../location";
import { ErrorState } from "./ErrorState";

/** ExportButton exports exactly the filters on screen, in CSV or JSON
 * lines: up to the sync limit the file downloads at once, under the name
 * the service gives it (the window and filters); above, the service
 * queues a job and e-mails its link, and the Exports view follows it. */
export function ExportButton({ filters, now, compact }: { filters: Filters; now: Date; total?: number; compact?: boolean }) {
  const [busy, setBusy] = useState<"csv" | "jsonl" | null>(null);
  const [job, setJob] = useState<ExportJob | null>(null);
  const [error, setError] = useState<unknown>();
  const run = async (format: "csv" | "jsonl") => {
    setBusy(format);
    setError(undefined);
    setJob(null);
    try {
      const q = new URLSearchParams(Object.entries({ ...apiQuery(filters, now), sort: filters.sort, ...(filters.order ? { order: filters.order } : {}), format }).map(([k, v]) => [k, String(v)]));
      const res = await fetch(`/api/audit-logs/exports?${q}`, { method: "POST", headers: authHeaders() });
      if (res.status === 401) auth.expire("The service refused the token (expired or invalid).");
      if (res.status === 202) setJob((await res.json()) as ExportJob);
      else if (res.ok) saveBlob(await res.blob(), attachmentName(res.headers.get("Content-Disposition")) ?? `audit-log.${format}`);
      else throw new ApiError(res.status, await res.json().catch(() => undefined));
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0));
    } finally {
      setBusy(null);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Group gap={4} wrap="nowrap">
        {/* A phone's toolbar is one line: the formats' short names, the
            action in their labels. */}
        <Button onClick={() => void run("csv")} loading={busy === "csv"} disabled={busy !== null} data-testid="export" px={compact ? "xs" : undefined}
          aria-label={compact ? "Export CSV" : undefined}>{compact ? "CSV" : "Export CSV"}</Button>
        <Button variant="default" onClick={() => void run("jsonl")} loading={busy === "jsonl"} disabled={busy !== null} data-testid="export-jsonl" px={compact ? "xs" : undefined}
          aria-label={compact ? "Export JSON lines" : undefined}>{compact ? "JSON" : "JSON lines"}</Button>
      </Group>
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
