import { Alert, Badge, Code, Group, Loader, Text } from "@mantine/core";
import { useEffect } from "react";
import { ApiError, authHeaders } from "../api/client";
import { checkInclusion, checkpointParts, rollback, verifyCosignature } from "../tlog";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";

type Proof = { leafIndex: number; treeSize: number; proof: string[]; checkpoint: string; checkpointTime: string };

/** check fetches the event as the API sends it, its inclusion proof and
 * the log key, and checks the proof here (tlog.ts). When the deployment
 * has witnesses, the proof is the one against the latest checkpoint they
 * cosigned, and each witness's cosignature is checked too; an event in no
 * cosigned checkpoint yet is "not yet cosigned", never "verified". */
async function check(id: string) {
  const keyRes = await fetch("/api/log-key");
  if (keyRes.status === 404) return "none" as const; // this store keeps no log
  const res = await fetch(`/api/audit-logs/${encodeURIComponent(id)}`, { headers: authHeaders() });
  if (!res.ok) throw new ApiError(res.status);
  const eventJSON = await res.text();
  const key = (await keyRes.json()) as { verifierKey: string; witnesses?: string[] };
  const witnesses = key.witnesses ?? [];
  const ask = async (cosigned: boolean) =>
    fetch(`/api/log/proof?event=${encodeURIComponent(id)}${cosigned ? "&cosigned=true" : ""}`, { headers: authHeaders() });
  let proof = await ask(witnesses.length > 0);
  let pending = false;
  if (witnesses.length > 0 && proof.status === 404) {
    pending = true; // in no cosigned checkpoint yet: check the plain proof, and say so
    proof = await ask(false);
  }
  if (proof.status === 404) return null; // not sealed yet
  if (!proof.ok) throw new ApiError(proof.status);
  const p = (await proof.json()) as Proof;
  const checked = await checkInclusion(eventJSON, p, key.verifierKey);
  if (checked.ok && checked.signature !== "invalid") {
    // The largest checkpoint this browser verified of the log is kept
    // (localStorage): a smaller or unjoined tree is a rollback (issue 53).
    const back = await rollback(localStorage, checkpointParts(p.checkpoint), key.verifierKey, consistency);
    if (back) return { ...checked, ok: false, rollback: true, time: p.checkpointTime, pending, cosigners: [] as string[], why: back };
  }
  if (!checked.ok || pending || witnesses.length === 0) return { ...checked, time: p.checkpointTime, pending, cosigners: [] as string[] };
  const results = await Promise.all(witnesses.map((w) => verifyCosignature(p.checkpoint, w)));
  if (results.includes("invalid")) return { ...checked, ok: false, time: p.checkpointTime, pending, cosigners: [], why: "a witness's cosignature does not verify" };
  return { ...checked, time: p.checkpointTime, pending, cosigners: witnesses.map((w) => w.split("+")[0]!) };
}

/** consistency is the service's proof that the tree of size to extends
 * the one of size from (its hashes), null when it gives none. */
async function consistency(from: number, to: number): Promise<string[] | null> {
  const res = await fetch(`/api/log/consistency?from=${from}&to=${to}`, { headers: authHeaders() });
  if (!res.ok) return null;
  return ((await res.json()) as { proof: string[] }).proof;
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
    const pending = typeof r.data === "object" && r.data !== null && r.data.pending; // asked again until cosigned
    if (r.loading || (r.data !== null && !transient && !pending)) return;
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
  if ("rollback" in c && c.rollback) {
    return (
      <Alert color="red" title="This log went back" data-testid="log-proof" data-ok="rollback">
        {c.why}. <Code>auditlog log verify</Code> with <Code>--witness</Code> tells whether the witnesses cosigned more.
      </Alert>
    );
  }
  if (!c.ok) {
    return (
      <Alert color="red" title="This event does not verify against the signed log" data-testid="log-proof" data-ok="false">
        {c.why}: it may have been changed after it was stored. <Code>auditlog log verify</Code> names what changed.
      </Alert>
    );
  }
  if (c.pending) {
    return (
      <Group gap="xs" data-testid="log-proof" data-ok="pending">
        <Badge color="yellow.4" autoContrast>not yet cosigned</Badge>
        <Text size="xs">
          In the log at #{c.index}, checkpoint of {formatTime(c.time, zone)}; the witnesses have not cosigned a checkpoint that holds it yet.
        </Text>
      </Group>
    );
  }
  return (
    <Group gap="xs" data-testid="log-proof" data-ok="true">
      <Badge color="teal.9">verified in this browser</Badge>
      <Text size="xs">
        In the log at #{c.index}, checkpoint of {formatTime(c.time, zone)} ({c.size} events)
        {c.signature === "valid" ? ", signature checked" : c.signature === "unchecked" ? "; this browser cannot check Ed25519 signatures" : ""}
        {c.cosigners.length > 0
          ? `, cosigned by ${c.cosigners.join(", ")}`
          : ". No witness is configured: only the service's own key vouches for this checkpoint, so a rolled-back log is caught only by this browser's memory of a larger one"}
      </Text>
    </Group>
  );
}
