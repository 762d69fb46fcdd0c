import { Alert, Anchor, Badge, Button, Group, Modal, Stack, Text, TextInput, Title } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { ApiError, api, must, type AuditEvent, type Restore } from "../api/client";
import { auth } from "../auth";
import { navigate } from "../location";
import { flatten } from "../state";
import { formatTime, useTimeZone } from "../time";
import { SideBySide } from "./SideBySide";

type Ask = { version: "before" | "after"; fields?: string[] };

/** askKey names an ask of this browser: the request it made is kept
 * under it (localStorage), so that asking again for the same fields of
 * the same resource shows the request still pending instead of making a
 * second one. (Requests made elsewhere are not known here: the API lists
 * no restore requests by resource.) */
const askKey = (e: AuditEvent, ask: Ask) =>
  `auditlog.restore:${e.tenantId}:${e.resource.type}:${e.resource.id}:${ask.version}:${(ask.fields ?? ["*"]).join(",")}`;

/** RestorePanel offers to undo one changed field first, and the whole
 * version second; each asks for confirmation with current and restored
 * values side by side, and a reason. onDialog says when its dialog is
 * open (Escape then closes the dialog only); onChanged when the
 * resource's versions may have changed (a conflict, an applied
 * restore). */
export function RestorePanel({ event, onDialog, onChanged }: { event: AuditEvent; onDialog: (open: boolean) => void; onChanged: () => void }) {
  const a = useSyncExternalStore(auth.subscribe, auth.state);
  const [ask, setAskState] = useState<Ask | null>(null);
  const [done, setDone] = useState<Restore | null>(null);
  // The control that opened the dialog takes the focus back when it
  // closes (Escape, Cancel, done): the dialog unmounts, so the modal's
  // own focus return has nothing to go back to.
  const opener = useRef<HTMLElement | null>(null);
  const setAsk = (x: Ask | null) => {
    if (x) opener.current = document.activeElement as HTMLElement | null;
    setAskState(x);
    onDialog(x !== null);
    if (!x) requestAnimationFrame(() => opener.current?.isConnected && opener.current.focus());
  };
  const role = a.claims?.role;
  if (!canRestore(role)) return null;
  const fields = Object.keys(event.diff ?? {}).filter((k) => !String(JSON.stringify(event.diff?.[k]?.from)).includes("masked:v1:"));
  return (
    <Stack gap="xs" data-testid="restore">
      <Title order={5}>Restore</Title>
      {event.before !== undefined && fields.length > 0 && (
        <Group gap="xs">
          <Text size="sm">Undo one field:</Text>
          {fields.map((f) => (
            <Button key={f} size="xs" variant="light" onClick={() => setAsk({ version: "before", fields: [f] })} data-testid={`undo-${f}`}>{f}</Button>
          ))}
        </Group>
      )}
      <Group gap="xs">
        {event.before !== undefined && <Button size="xs" variant="outline" onClick={() => setAsk({ version: "before" })} data-testid="restore-before">Restore the whole version before this change</Button>}
        {event.after !== undefined && <Button size="xs" variant="subtle" onClick={() => setAsk({ version: "after" })}>Restore the state this change made</Button>}
      </Group>
      {done && <RestoreStatus first={done} onFinal={onChanged} />}
      {ask && <Confirm event={event} ask={ask} superadmin={role === "superadmin"} onClose={() => setAsk(null)} onConflict={onChanged}
        onDone={(r) => { localStorage.setItem(askKey(event, ask), r.requestId); setDone(r); setAsk(null); }} />}
    </Stack>
  );
}

/** afterAsk is the whole state a version made (one object: the dialog
 * reads the resource again when its ask changes). */
const afterAsk: Ask = { version: "after" };

/** RestoreVersion asks to restore the state one version made (the
 * event eventId, its after): what the drawer's "Restore the state this
 * change made" asks, from the versions list or the comparison, without
 * opening that version first. It reads the event, then confirms as the
 * drawer does; the request is followed below (RestoreStatus). */
export function RestoreVersion({ eventId, onClose, onDone, onConflict }: { eventId: string; onClose: () => void; onDone: (r: Restore) => void; onConflict: () => void }) {
  const a = useSyncExternalStore(auth.subscribe, auth.state);
  const [event, setEvent] = useState<AuditEvent | null>(null);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    must(api.GET("/api/audit-logs/{id}", { params: { path: { id: eventId } } })).then(setEvent, setError);
  }, [eventId]);
  const ask = afterAsk;
  if (error !== undefined) return <Alert color="red" title="This version cannot be read" data-testid="restore-error">{error instanceof Error ? error.message : String(error)}</Alert>;
  if (!event) return null;
  return <Confirm event={event} ask={ask} superadmin={a.claims?.role === "superadmin"} onClose={onClose} onConflict={onConflict}
    onDone={(r) => { localStorage.setItem(askKey(event, ask), r.requestId); onDone(r); }} />;
}

/** canRestore says whether the signed-in role may ask for restores. */
export const canRestore = (role?: string) => role === "admin" || role === "superadmin";

/** latestVersion reads the resource's newest version. */
async function latestVersion(e: AuditEvent): Promise<AuditEvent> {
  const h = await must(api.GET("/api/resources/{type}/{id}/history", { params: { path: { type: e.resource.type, id: e.resource.id }, query: { pageSize: 1 } } }));
  const id = h.data[0]?.eventId ?? e.id;
  return id === e.id ? e : must(api.GET("/api/audit-logs/{id}", { params: { path: { id } } }));
}

/** pick keeps the given paths of a state (all without paths). */
function pick(state: unknown, paths?: string[]): unknown {
  if (!paths) return state ?? {};
  const flat = flatten(state ?? {});
  return Object.fromEntries(paths.map((p) => [p, flat.get(p)]));
}

type ConfirmProps = { event: AuditEvent; ask: Ask; superadmin: boolean; onClose: () => void; onDone: (r: Restore) => void; onConflict: () => void };

/** pendingAsk is the request this browser made for ask, while pending. */
async function pendingAsk(event: AuditEvent, ask: Ask): Promise<Restore | null> {
  const id = localStorage.getItem(askKey(event, ask));
  if (!id) return null;
  try {
    const r = await must(api.GET("/api/restores/{id}", { params: { path: { id } } }));
    return r.status === "pending" ? r : null;
  } catch {
    return null;
  }
}

type Newer = { eventId: string; actor: { email: string }; timestamp: string };

function Confirm({ event, ask, superadmin, onClose, onDone, onConflict }: ConfirmProps) {
  const [zone] = useTimeZone();
  const phone = useMediaQuery("(max-width: 40em)");
  const [latest, setLatest] = useState<AuditEvent | null>(null);
  const [pending, setPending] = useState<Restore | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [reason, setReason] = useState(() => auth.reason() ?? "");
  const [busy, setBusy] = useState(false);
  const [key] = useState(() => crypto.randomUUID());
  useEffect(() => {
    latestVersion(event).then(setLatest, (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0)));
    void pendingAsk(event, ask).then(setPending);
  }, [event, ask]);
  const submit = async (force: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const r = await must(api.POST("/api/audit-logs/{id}/restore", {
        params: { path: { id: event.id }, header: { "Idempotency-Key": force ? `${key}-force` : key } },
        body: { version: ask.version, fields: ask.fields, latestSeen: latest?.id, force, reason: reason.trim() || undefined },
      }));
      onDone(r);
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(0);
      if (err.status === 409) {
        // Changed since the dialog read it: read the current state again,
        // so that "Current" shows what "Restore anyway" would replace.
        setLatest(null);
        await latestVersion(event).then(setLatest, () => {});
        onConflict();
      }
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const target = ask.version === "before" ? event.before : event.after;
  const newer = error?.status === 409 ? (error.problem?.details as { latest?: Newer } | undefined)?.latest : undefined;
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ "aria-label": "Cancel the restore" }} fullScreen={!!phone}
      title={ask.fields ? `Undo ${ask.fields.join(", ")}` : `Restore the ${ask.version === "before" ? "previous" : "resulting"} version`} size="xl" data-testid="restore-confirm">
      <Stack>
        <Text size="sm">The audit log asks the service that owns this {event.resource.type} to apply it. Secrets are never written back.</Text>
        {latest && <SideBySide left={pick(latest.after, ask.fields)} right={pick(target, ask.fields)} leftLabel="Current" rightLabel="Restored" />}
        <TextInput label={superadmin ? "Reason (recorded; required for the operator team)" : "Reason (recorded with the request)"} value={reason} maxLength={500}
          onChange={(e) => setReason(e.currentTarget.value)} data-testid="restore-reason" placeholder="e.g. Ticket CS-4821: revert the greeting" />
        {pending && (
          <Alert color="blue" title="Already asked, still pending" data-testid="restore-pending">
            Request {pending.requestId}, asked at {formatTime(pending.createdAt, zone)}, is waiting for the owning service
            {pending.deliveredAt ? " (delivered)" : ""}: it is not asked a second time.
          </Alert>
        )}
        {newer && (
          <Alert color="orange" title="Changed since you looked" data-testid="restore-conflict">
            {newer.actor.email} changed it at {formatTime(newer.timestamp, zone)}:{" "}
            <Anchor href={`?event=${encodeURIComponent(newer.eventId)}`} onClick={(ev) => { ev.preventDefault(); onClose(); navigate(`?event=${encodeURIComponent(newer.eventId)}`); }}
              data-testid="restore-newer">see the newer version</Anchor>, or restore anyway.
          </Alert>
        )}
        {error && !newer && <Alert color="red" title="Not restored" data-testid="restore-error">{error.message}</Alert>}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>Cancel</Button>
          {newer && <Button color="orange" loading={busy} onClick={() => submit(true)} data-testid="restore-force">Restore anyway</Button>}
          {!newer && !pending && <Button loading={busy} disabled={!latest || (superadmin && !reason.trim())} onClick={() => submit(false)} data-testid="restore-submit">Ask for the restore</Button>}
        </Group>
      </Stack>
    </Modal>
  );
}

/** RestoreStatus follows a request: pending → applied (or failed), then
 * tells onFinal (the versions list refreshes). */
export function RestoreStatus({ first, onFinal }: { first: Restore; onFinal: () => void }) {
  const [r, setR] = useState(first);
  useEffect(() => {
    if (r.status !== "pending") {
      if (first.status === "pending") onFinal();
      return;
    }
    const t = setTimeout(async () => {
      try {
        setR(await must(api.GET("/api/restores/{id}", { params: { path: { id: r.requestId } } })));
      } catch {
        setR({ ...r }); // try again
      }
    }, 2000);
    return () => clearTimeout(t);
    // Runs on each new answer only: onFinal once, when it stops pending.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [r]);
  const color = r.status === "applied" ? "teal.9" : r.status === "failed" ? "red.9" : "blue.9";
  return (
    <Alert color={color} title="Restore requested" data-testid="restore-status">
      <Group gap="xs">
        <Badge color={color}>{r.status}</Badge>
        <Text size="sm">request {r.requestId}{r.deliveredAt ? ", delivered to the owning service" : ", waiting for the owning service"}{r.statusReason ? ` — ${r.statusReason}` : ""}</Text>
      </Group>
      {r.omittedFields.length > 0 && <Text size="xs" c="dimmed">Left as they are (secrets): {r.omittedFields.join(", ")}</Text>}
    </Alert>
  );
}
