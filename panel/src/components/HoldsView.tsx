import { Anchor, Badge, Button, Card, Group, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { useState } from "react";
import { api, ApiError, download, must } from "../api/client";
import { auth } from "../auth";
import { bodyOf, emptyHoldForm, formOf, holdFieldErrors, HoldRole, releaseText, scopeText, type Hold, type HoldForm as Form } from "../holds";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";

const stateColor: Record<string, string> = { active: "teal.9", releasing: "orange.9", released: "gray.8" };

/** HoldForm places a hold, or changes one: the matter, why, a reference,
 * and the scope (a range of UTC days and a query of the search
 * language). The API's refusals show under the fields they name. */
function HoldForm({ hold, onDone }: { hold?: Hold; onDone: () => void }) {
  const [f, setF] = useState<Form>(hold ? formOf(hold) : emptyHoldForm());
  const [errs, setErrs] = useState<ReturnType<typeof holdFieldErrors>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = (k: keyof Form) => (e: { currentTarget: { value: string } }) => setF({ ...f, [k]: e.currentTarget.value });
  const save = async () => {
    setBusy(true);
    setErrs({});
    setError(undefined);
    try {
      if (hold) await must(api.PUT("/api/legal-holds/{id}", { params: { path: { id: hold.id } }, body: bodyOf(f) }));
      else await must(api.POST("/api/legal-holds", { body: bodyOf(f) }));
      onDone();
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) setErrs(holdFieldErrors(e.problem?.errors));
      else setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap="xs" data-testid="hold-form" maw={640}>
      <TextInput label="Matter" value={f.matter} onChange={set("matter")} error={errs.matter} required placeholder="Dispute 2026-114" />
      <Textarea label="Reason" value={f.reason} onChange={set("reason")} error={errs.reason} required autosize minRows={2} />
      <TextInput label="Reference" value={f.reference} onChange={set("reference")} error={errs.reference} placeholder="your case number" />
      <Group grow>
        <TextInput type="date" label="From (UTC day)" value={f.from} onChange={set("from")} error={errs.from} />
        <TextInput type="date" label="To (UTC day, included)" value={f.to} onChange={set("to")} error={errs.to} />
      </Group>
      <TextInput label="Only events matching" value={f.q} onChange={set("q")} error={errs.q} placeholder="actor:grace@acme.example (empty: every event)" />
      {errs.other && <Text size="sm" c="red.8">{errs.other}</Text>}
      {error !== undefined && <ErrorState error={error} />}
      <Group>
        <Button onClick={() => void save()} loading={busy} data-testid="hold-save">{hold ? "Save the change" : "Place the hold"}</Button>
        <Button variant="subtle" onClick={onDone}>Cancel</Button>
      </Group>
    </Stack>
  );
}

/** HoldCard is one hold: its matter and state, what it keeps and how many
 * events that is, who placed it, and what its release lets retention
 * delete and when. A holder changes it, asks its release (twice, as it
 * frees events to retention) or undoes a waiting release, and anyone who
 * reads it downloads its events as a signed, verifiable export. */
function HoldCard({ h, holder, reload }: { h: Hold; holder: boolean; reload: () => void }) {
  const [zone] = useTimeZone();
  const fmt = (t: string) => formatTime(t, zone);
  const [armed, setArmed] = useState(false);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>();
  const path = { params: { path: { id: h.id } } };
  const act = async (p: Promise<unknown>) => {
    setError(undefined);
    setArmed(false);
    try {
      await p;
      reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Card withBorder padding="sm" data-testid="hold" data-state={h.state}>
      <Group justify="space-between" wrap="nowrap" align="start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Group gap="xs">
            <Text fw={600}>{h.matter}</Text>
            <Badge color={stateColor[h.state]}>{h.state}</Badge>
            {h.reference && <Badge variant="light" tt="none">{h.reference}</Badge>}
          </Group>
          <Text size="sm" style={{ overflowWrap: "anywhere" }} data-testid="hold-scope">{scopeText(h, fmt)}</Text>
          <Text size="sm" data-testid="hold-events">
            {h.events.toLocaleString("en")} events{h.first && h.last ? `, ${fmt(h.first)} to ${fmt(h.last)}` : ""}
          </Text>
          <Text size="sm" c={h.state === "releasing" ? "orange.9" : undefined} data-testid="hold-release">{releaseText(h, fmt)}</Text>
          <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
            Placed by {h.placedBy} on {fmt(h.placedAt)} · {h.reason}
            {h.release ? ` · release asked by ${h.release.requestedBy} on ${fmt(h.release.requestedAt)}` : ""}
          </Text>
        </Stack>
        <Stack gap={4} align="flex-end">
          <Button size="compact-xs" variant="light" onClick={() => void act(download(`/api/legal-holds/${h.id}/export`, `legal-hold-${h.id}.tar`))}>Signed export</Button>
          {holder && h.state === "active" && <Button size="compact-xs" variant="light" onClick={() => setEditing(!editing)}>Change</Button>}
          {holder && h.state === "active" && (armed
            ? <Button size="compact-xs" color="orange" onClick={() => void act(must(api.POST("/api/legal-holds/{id}/release", path)))}>Confirm: release</Button>
            : <Button size="compact-xs" variant="subtle" color="red.9" c="red.9" onClick={() => setArmed(true)}>Release</Button>)}
          {holder && h.state === "releasing" && (
            <Button size="compact-xs" variant="light" onClick={() => void act(must(api.DELETE("/api/legal-holds/{id}/release", path)))}>Undo the release</Button>
          )}
        </Stack>
      </Group>
      {editing && <HoldForm hold={h} onDone={() => { setEditing(false); reload(); }} />}
      {error !== undefined && <ErrorState error={error} />}
    </Card>
  );
}

/** HoldsView is the tenant's legal holds (issue 55): each one's state,
 * scope, size and what its release would let retention delete, the
 * report as CSV, and (for the tenant's legal_hold role) a form for a new
 * one. Its admins read. */
export function HoldsView() {
  const list = useAsync(() => must(api.GET("/api/legal-holds")), "holds");
  const [adding, setAdding] = useState(false);
  const holder = auth.state().claims?.role === HoldRole;
  return (
    <Stack data-testid="holds">
      <Title order={4}>Legal holds</Title>
      <Text size="sm">A hold keeps the events in its scope past their plan's retention until its release takes effect, after a grace period during which
        the release can be undone. Placing, changing and releasing a hold are events in this tenant's verifiable log. <Anchor href="https://github.com/auditlog/auditlog/blob/main/docs/legal-holds.md" target="_blank">How holds work</Anchor></Text>
      {!holder && <Text size="sm" c="dimmed" data-testid="holds-readonly">Placing, changing and releasing holds takes the {HoldRole} role in your token.</Text>}
      {list.error ? <ErrorState error={list.error} retry={list.reload} /> : (list.data?.data ?? []).map((h) => <HoldCard key={h.id} h={h} holder={holder} reload={list.reload} />)}
      {!list.loading && !list.error && !list.data?.data.length && <Text c="dimmed" size="sm">No legal hold.</Text>}
      <Group>
        {holder && !adding && <Button variant="light" onClick={() => setAdding(true)} data-testid="hold-new">New hold</Button>}
        <Button variant="subtle" onClick={() => void download("/api/legal-holds/report.csv", "legal-holds.csv")}>Report (CSV)</Button>
      </Group>
      {adding && <HoldForm onDone={() => { setAdding(false); list.reload(); }} />}
    </Stack>
  );
}
