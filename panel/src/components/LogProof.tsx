import { Alert, Badge, Code, Group, Loader, Text } from "@mantine/core";
import { useEffect } from "react";
import { ApiError, authHeaders } from "../api/client";
import { checkInclusion } from "../tlog";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";

/** check fetches the event as the API sends it, its inclusion proof and
 * the log key, and checks the proof here (tlog.ts). */
async function check(id: string) {
  const keyRes = await fetch("/api/log-key");
  if (keyRes.status === 404) return "none" as const; // this store keeps no log
  const res = await fetch(`/api/audit-logs/${encodeURIComponent(id)}`, { headers: authHeaders() });
  if (!res.ok) throw new ApiError(res.status);
  const eventJSON = await res.text();
  const proof = await fetch(`/api/log/proof?event=${encodeURIComponent(id)}`, { headers: authHeaders() });
  if (proof.status === 404) return null; // not sealed yet, or no log on this store
  if (!proof.ok) throw new ApiError(proof.status);
  const p = (await proof.json()) as { leafIndex: number; treeSize: number; proof: string[]; checkpoint: string; checkpointTime: string };
  const key = (await keyRes.json()) as { verifierKey: string };
  return { ...(await checkInclusion(eventJSON, p, key.verifierKey)), time: p.checkpointTime };
}

/** LogProof says where the event is in the tenant's verifiable log, as
 * this browser checked it. */
export function LogProof({ id }: { id: string }) {
  const [zone] = useTimeZone();
  const r = useAsync(() => check(id), `proof ${id}`);
  // Not sealed yet, or the check could not run for a passing reason (the
  // network, a busy or failing server): ask again (a sealing round runs
  // every second). A refusal (4xx) is shown and not asked again.
  const transient = r.error !== undefined && !(r.error instanceof ApiError && r.error.status >= 400 && r.error.status < 500 && r.error.status !== 429);
  useEffect(() => {
    if (r.loading || (r.data !== null && !transient)) return;
    const t = setTimeout(r.reload, 2000);
    return () => clearTimeout(t);
  });
  if (r.loading) return <Group gap="xs"><Loader size="xs" /><Text size="xs">Checking the event's place in the log…</Text></Group>;
  if (r.data === "none") return null;
  if (r.error) {
    return (
      <Text size="xs" c="dimmed" data-testid="log-proof" data-ok="error">
        The event's place in the log could not be checked ({r.error instanceof Error ? r.error.message : String(r.error)}){transient ? "; trying again" : ""}.
      </Text>
    );
  }
  if (!r.data) return <Text size="xs" c="dimmed" data-testid="log-proof">Not in the verifiable log yet (sealing runs every second).</Text>;
  const c = r.data;
  if (!c.ok) {
    return (
      <Alert color="red" title="This event does not verify against the signed log" data-testid="log-proof" data-ok="false">
        {c.why}: it may have been changed after it was stored. <Code>auditlog log verify</Code> names what changed.
      </Alert>
    );
  }
  return (
    <Group gap="xs" data-testid="log-proof" data-ok="true">
      <Badge color="teal.9" variant="light">verified in this browser</Badge>
      <Text size="xs">
        In the log at #{c.index}, checkpoint of {formatTime(c.time, zone)} ({c.size} events)
        {c.signature === "valid" ? ", signature checked" : c.signature === "unchecked" ? "; this browser cannot check Ed25519 signatures" : ""}
      </Text>
    </Group>
  );
}
