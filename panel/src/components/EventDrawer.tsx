import { Anchor, Badge, Button, Code, CopyButton, Drawer, Group, Loader, Stack, Text, Title } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { useState } from "react";
import { api, must } from "../api/client";
import { navigate, useSearch } from "../location";
import { pivots } from "../pivots";
import { diffSides } from "../state";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";
import { History } from "./History";
import { JsonTree } from "./JsonTree";
import { LogProof } from "./LogProof";
import { RestorePanel } from "./RestorePanel";
import { SideBySide } from "./SideBySide";

const parse = (raw: unknown) => raw ?? {};

/** eventLink is the absolute URL of event id over the current view (never
 * the #token= of a sign-in link). */
export function eventLink(id: string): string {
  const p = new URLSearchParams(location.search);
  p.set("event", id);
  return `${location.origin}${location.pathname}?${p}`;
}

/** EventDrawer is one event, at its own URL (?event=<id>): the full
 * event, the compare of its before and after, the resource's versions
 * and the restore. Full-screen on a phone. Escape closes the restore
 * dialog first, the drawer second; closing gives the focus back to the
 * event's row. */
export function EventDrawer({ id }: { id: string }) {
  const search = useSearch();
  const [zone] = useTimeZone();
  const phone = useMediaQuery("(max-width: 40em)");
  const [dialog, setDialog] = useState(false);
  const [versions, setVersions] = useState(0);
  const ev = useAsync(() => must(api.GET("/api/audit-logs/{id}", { params: { path: { id } } })), id);
  const close = () => {
    const p = new URLSearchParams(search);
    p.delete("event");
    const s = p.toString();
    navigate(s ? `?${s}` : "");
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-testid="event-row"][data-id="${CSS.escape(id)}"]`)?.focus());
  };
  const e = ev.data;
  const stateful = e && e.action !== "access" && (e.before !== undefined || e.after !== undefined);
  // The change first, for every event with a diff: which queue was
  // deleted, what a setting became (issue 42). An event with whole states
  // shows them compared below instead, changed fields first.
  const change = e && !stateful && Object.keys(e.diff ?? {}).length > 0 ? diffSides(e.diff as never) : undefined;
  return (
    <Drawer opened onClose={close} position="right" size={phone ? "100%" : "60%"} closeOnEscape={!dialog} returnFocus={false} closeButtonProps={{ "aria-label": "Close the event" }} title={<Title order={4}>Event</Title>} data-testid="event-drawer">
      {ev.error ? <ErrorState error={ev.error} retry={ev.reload} /> : !e ? <Loader /> : (
        <Stack>
          <Group gap="xs">
            <Badge>{e.action}</Badge>
            <Text fw={600}>{e.resource.type}</Text>
            <Code style={{ overflowWrap: "anywhere" }}>{e.resource.id}</Code>
            {e.crossTenant && <Badge color="grape.9">operator team</Badge>}
            {e.outcome === "failure" && <Badge color="red.9">failure</Badge>}
          </Group>
          <Text size="sm">
            {formatTime(e.timestamp, zone)} by {e.actor.email} ({e.actor.role}){e.actor.ip ? ` from ${e.actor.ip}` : ""}
            {e.reason ? ` — reason: ${e.reason}` : ""}
          </Text>
          {change && (
            <div data-testid="the-change">
              <Title order={5}>The change</Title>
              <SideBySide left={change.before} right={change.after} leftLabel="Before" rightLabel="After" />
            </div>
          )}
          <LogProof id={e.id} />
          <CopyButton value={eventLink(e.id)}>
            {({ copied, copy }) => <Button size="compact-xs" variant="subtle" w="fit-content" onClick={copy} data-testid="copy-link">{copied ? "Link copied" : "Copy link to this event"}</Button>}
          </CopyButton>
          <Group gap="md" data-testid="pivots">
            {pivots(e).map((p) => (
              <Anchor key={p.label} size="sm" href={p.search} onClick={(ev) => { ev.preventDefault(); navigate(p.search); }}>{p.label}</Anchor>
            ))}
          </Group>
          {stateful && (
            <>
              <Title order={5}>Before and after</Title>
              <SideBySide left={parse(e.before)} right={parse(e.after)} leftLabel="Before" rightLabel="After" />
              <RestorePanel event={e} onDialog={setDialog} onChanged={() => setVersions((v) => v + 1)} />
              <History type={e.resource.type} resourceId={e.resource.id} current={e.id} refresh={versions} onDialog={setDialog} onChanged={() => setVersions((v) => v + 1)} />
            </>
          )}
          <Title order={5}>The full event</Title>
          <JsonTree value={e} label="the event's JSON" />
        </Stack>
      )}
    </Drawer>
  );
}
