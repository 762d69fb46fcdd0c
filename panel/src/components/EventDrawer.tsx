import { Anchor, Badge, Code, Drawer, Group, Loader, Stack, Text, Title } from "@mantine/core";
import { api, must } from "../api/client";
import { navigate, useSearch } from "../location";
import { pivots } from "../pivots";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";
import { History } from "./History";
import { RestorePanel } from "./RestorePanel";
import { SideBySide } from "./SideBySide";

const parse = (raw: unknown) => raw ?? {};

/** EventDrawer is one event, at its own URL (?event=<id>): the full
 * event, the compare of its before and after, the resource's versions
 * and the restore. */
export function EventDrawer({ id }: { id: string }) {
  const search = useSearch();
  const [zone] = useTimeZone();
  const ev = useAsync(() => must(api.GET("/api/audit-logs/{id}", { params: { path: { id } } })), id);
  const close = () => {
    const p = new URLSearchParams(search);
    p.delete("event");
    const s = p.toString();
    navigate(s ? `?${s}` : "");
  };
  const e = ev.data;
  const stateful = e && e.action !== "access" && (e.before !== undefined || e.after !== undefined);
  return (
    <Drawer opened onClose={close} position="right" size="60%" closeButtonProps={{ "aria-label": "Close the event" }} title={<Title order={4}>Event</Title>} data-testid="event-drawer">
      {ev.error ? <ErrorState error={ev.error} retry={ev.reload} /> : !e ? <Loader /> : (
        <Stack>
          <Group>
            <Badge>{e.action}</Badge>
            <Text fw={600}>{e.resource.type}</Text>
            <Code>{e.resource.id}</Code>
            {e.crossTenant && <Badge color="grape.9">operator team</Badge>}
            {e.outcome === "failure" && <Badge color="red.9">failure</Badge>}
          </Group>
          <Text size="sm">
            {formatTime(e.timestamp, zone)} by {e.actor.email} ({e.actor.role}){e.actor.ip ? ` from ${e.actor.ip}` : ""}
            {e.reason ? ` — reason: ${e.reason}` : ""}
          </Text>
          <Group gap="md" data-testid="pivots">
            {pivots(e).map((p) => (
              <Anchor key={p.label} size="sm" href={p.search} onClick={(ev) => { ev.preventDefault(); navigate(p.search); }}>{p.label}</Anchor>
            ))}
          </Group>
          {stateful && (
            <>
              <Title order={5}>Before and after</Title>
              <SideBySide left={parse(e.before)} right={parse(e.after)} leftLabel="Before" rightLabel="After" />
              <RestorePanel event={e} />
              <History type={e.resource.type} resourceId={e.resource.id} current={e.id} />
            </>
          )}
          <Title order={5}>The full event</Title>
          <Code block data-testid="event-json">{JSON.stringify(e, null, 2)}</Code>
        </Stack>
      )}
    </Drawer>
  );
}
