import { Anchor, Badge, Center, Code, Group, Loader, Stack, Table, Text, UnstyledButton } from "@mantine/core";
import type { AuditEvent } from "../api/client";
import type { Filters } from "../filters";
import { show } from "../state";
import { formatTime, useTimeZone } from "../time";

const columns: { field: Filters["sort"]; label: string }[] = [
  { field: "timestamp", label: "Time" },
  { field: "actor.email", label: "User" },
  { field: "action", label: "Action" },
  { field: "resource.type", label: "Resource" },
];

/** DiffPreview shows an event's changed fields as from → to. */
export function DiffPreview({ e }: { e: AuditEvent }) {
  const entries = Object.entries(e.diff ?? {});
  if (!entries.length) return null;
  return (
    <Stack gap={0} data-testid="diff-preview">
      {entries.slice(0, 4).map(([k, c]) => (
        <Text key={k} size="xs" ff="monospace">
          {k}: {show(c.from)} → {show(c.to)}
        </Text>
      ))}
      {entries.length > 4 && <Text size="xs" c="dimmed">and {entries.length - 4} more</Text>}
    </Stack>
  );
}

type Props = {
  events: AuditEvent[];
  loading: boolean;
  /** busy: newer filters are loading; the rows shown are the previous ones. */
  busy: boolean;
  filters: Filters;
  operator: boolean;
  onFilter: (f: Filters) => void;
  onOpen: (id: string) => void;
};

/** EventsTable lists events; a column header sorts, a value filters. */
export function EventsTable({ events, loading, busy, filters, operator, onFilter, onOpen }: Props) {
  const [utc] = useTimeZone();
  if (loading) return <Center py="xl"><Loader /></Center>;
  if (!events.length)
    return (
      <Center py="xl" data-testid="empty-state">
        <Text c="dimmed">No events match these filters in this time range. Widen the dates or remove a filter.</Text>
      </Center>
    );
  const sortBy = (field: Filters["sort"]) => {
    const desc = filters.sort === field ? (filters.order ?? (field === "timestamp" ? "desc" : "asc")) === "desc" : field === "timestamp";
    onFilter({ ...filters, sort: field, order: filters.sort === field ? (desc ? "asc" : "desc") : undefined });
  };
  const arrow = (field: Filters["sort"]) => (filters.sort !== field ? "" : (filters.order ?? (field === "timestamp" ? "desc" : "asc")) === "desc" ? " ▼" : " ▲");
  return (
    <Table.ScrollContainer minWidth={900}>
    <Table striped highlightOnHover data-testid="events" aria-busy={busy} style={{ opacity: busy ? 0.6 : 1 }}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((c) => (
            <Table.Th key={c.field}>
              <UnstyledButton fw={600} onClick={() => sortBy(c.field)} data-testid={`sort-${c.field}`}>{c.label}{arrow(c.field)}</UnstyledButton>
            </Table.Th>
          ))}
          <Table.Th>{operator ? "Declared reason" : "Outcome"}</Table.Th>
          <Table.Th>{operator ? "Details" : "Changes"}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {events.map((e) => (
          <Table.Tr key={e.id} data-testid="event-row" data-id={e.id} style={{ cursor: "pointer" }} tabIndex={0} aria-label={`Open the ${e.action} of ${e.resource.type} by ${e.actor.email}`}
            onClick={() => onOpen(e.id)} onKeyDown={(ev) => { if (ev.key === "Enter" && ev.target === ev.currentTarget) onOpen(e.id); }}>
            <Table.Td title={formatTime(e.timestamp, !utc)} style={{ whiteSpace: "nowrap" }}>{formatTime(e.timestamp, utc)}</Table.Td>
            <Table.Td>
              <Anchor component="button" type="button" size="sm" onClick={(ev) => { ev.stopPropagation(); onFilter({ ...filters, actorEmail: e.actor.email }); }}>{e.actor.email}</Anchor>
              {e.crossTenant && <Badge ml="xs" color="grape.9" size="xs" data-testid="cross-tenant">operator team</Badge>}
            </Table.Td>
            <Table.Td miw={90}><Badge variant="light" style={{ overflow: "visible" }}>{e.action}</Badge></Table.Td>
            <Table.Td>
              <Group gap={4} wrap="nowrap">
                <Anchor component="button" type="button" size="sm" onClick={(ev) => { ev.stopPropagation(); onFilter({ ...filters, resourceType: [e.resource.type] }); }}>{e.resource.type}</Anchor>
                <Anchor component="button" type="button" size="xs" c="dimmed" aria-label={`Filter on resource ${e.resource.id}`} onClick={(ev) => { ev.stopPropagation(); onFilter({ ...filters, resourceId: e.resource.id }); }}>
                  <Code>{e.resource.id.slice(0, 8)}</Code>
                </Anchor>
              </Group>
            </Table.Td>
            <Table.Td miw={110}>
              {operator ? <Text size="sm">{e.reason}</Text> : <Badge color={e.outcome === "failure" ? "red.9" : "green.9"} variant="dot" style={{ overflow: "visible" }}>{e.outcome ?? "success"}</Badge>}
            </Table.Td>
            <Table.Td>{!operator && <DiffPreview e={e} />}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
    </Table.ScrollContainer>
  );
}
