import { Anchor, Badge, Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { api, must } from "../api/client";
import { formatLabel, kindLabel, lagText, target, type Format, type Kind, type Stream } from "../streams";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";
import { StreamForm } from "./StreamForm";

const stateColor: Record<string, string> = { active: "teal.9", failing: "orange.9", paused: "gray.8" };

/** StreamCard is one stream: where it goes, its state and why, its lag
 * and health, and its actions (a test delivery, pause or resume, replay
 * from the start, delete; the last two ask twice). */
function StreamCard({ s, reload }: { s: Stream; reload: () => void }) {
  const [zone] = useTimeZone();
  const [armed, setArmed] = useState<"" | "replay" | "delete">("");
  const [note, setNote] = useState<string>("");
  const [error, setError] = useState<unknown>();
  const act = async (what: string, p: Promise<unknown>) => {
    setError(undefined);
    setArmed("");
    try {
      const r = await p;
      if (what === "test") {
        const t = r as { outcome: string; reason: string };
        setNote(`Test delivery: ${t.outcome}${t.reason ? ` (${t.reason})` : ""}`);
      }
      reload();
    } catch (e) {
      setError(e);
    }
  };
  const path = { params: { path: { id: s.id } } };
  const h = s.health;
  return (
    <Card withBorder padding="sm" data-testid="stream" data-state={s.state}>
      <Group justify="space-between" wrap="nowrap" align="start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Group gap="xs">
            <Text fw={600}>{s.name}</Text>
            <Badge color={stateColor[s.state]}>{s.state}</Badge>
            <Badge variant="light" tt="none">{kindLabel[s.destination.kind as Kind]}</Badge>
          </Group>
          <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }}>{target(s.destination)}{s.format === "ocsf" ? ` · ${formatLabel[s.format as Format]}` : ""}{s.filter ? ` · filter ${s.filter}` : ""}</Text>
          {s.reason && <Text size="sm" c={s.state === "active" ? undefined : "orange.9"} data-testid="stream-reason">{s.reason}</Text>}
          <Text size="sm" data-testid="stream-lag">{lagText(s)} · leaf {s.cursor.toLocaleString("en")} of {s.logSize.toLocaleString("en")}</Text>
          <Text size="xs" c="dimmed">
            {h.deliveredEvents.toLocaleString("en")} events in {h.deliveredBatches.toLocaleString("en")} batches · {h.failedAttempts} failed attempts
            {h.lastSuccessAt ? ` · last success ${formatTime(h.lastSuccessAt, zone)}` : ""}
            {h.lastError ? ` · last error ${h.lastErrorAt ? formatTime(h.lastErrorAt, zone) : ""}: ${h.lastError}` : ""}
          </Text>
          {note && <Text size="sm" data-testid="stream-test-result">{note}</Text>}
        </Stack>
        <Stack gap={4} align="flex-end">
          <Button size="compact-xs" variant="light" onClick={() => void act("test", must(api.POST("/api/streams/{id}/test", path)))}>Test delivery</Button>
          {s.state === "paused"
            ? <Button size="compact-xs" variant="light" onClick={() => void act("resume", must(api.POST("/api/streams/{id}/resume", path)))}>Resume</Button>
            : <Button size="compact-xs" variant="light" onClick={() => void act("pause", must(api.POST("/api/streams/{id}/pause", path)))}>Pause</Button>}
          {armed === "replay"
            ? <Button size="compact-xs" color="orange" onClick={() => void act("replay", must(api.POST("/api/streams/{id}/replay", { ...path, body: { from: 0 } })))}>Confirm: deliver everything again</Button>
            : <Button size="compact-xs" variant="subtle" onClick={() => setArmed("replay")}>Replay from the start</Button>}
          {armed === "delete"
            ? <Button size="compact-xs" color="red.8" onClick={() => void act("delete", must(api.DELETE("/api/streams/{id}", path)))}>Confirm: delete</Button>
            : <Button size="compact-xs" variant="subtle" color="red" onClick={() => setArmed("delete")}>Delete</Button>}
        </Stack>
      </Group>
      {error !== undefined && <ErrorState error={error} />}
    </Card>
  );
}

/** StreamsView is the tenant's streams to its SIEM or storage (issue 43):
 * each one's health, refreshed every five seconds, and a form for a new
 * one. */
export function StreamsView() {
  const list = useAsync(() => must(api.GET("/api/streams")), "streams");
  const [adding, setAdding] = useState(false);
  useEffect(() => {
    const t = setInterval(list.reload, 5000);
    return () => clearInterval(t);
  }, [list.reload]);
  return (
    <Stack data-testid="streams">
      <Title order={4}>Streams</Title>
      <Text size="sm">Each stream delivers this tenant's events to your SIEM or storage as they are sealed into the verifiable log, in log order, each with its
        leaf index, so that your side can prove nothing is missing or repeated. <Anchor href="https://github.com/auditlog/auditlog/blob/main/docs/streams.md" target="_blank">How streams work</Anchor></Text>
      {list.error ? <ErrorState error={list.error} retry={list.reload} /> : (list.data?.data ?? []).map((s) => <StreamCard key={s.id} s={s} reload={list.reload} />)}
      {!list.loading && !list.error && !list.data?.data.length && <Text c="dimmed" size="sm">No stream yet.</Text>}
      {adding ? <StreamForm onCreated={() => { setAdding(false); list.reload(); }} /> : (
        <Group><Button variant="light" onClick={() => setAdding(true)} data-testid="stream-new">New stream</Button></Group>
      )}
    </Stack>
  );
}
