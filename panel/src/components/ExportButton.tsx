import { Alert, Anchor, Button, Stack } from "@mantine/core";
import { useState } from "react";
import { ApiError, authHeaders, saveBlob, type ExportJob } from "../api/client";
import { auth } from "../auth";
import { apiQuery, type Filters } from "../filters";
import { navigate } from "../location";
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
