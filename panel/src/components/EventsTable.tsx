import { Center, Loader, Table, Text, UnstyledButton } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { useState } from "react";
import "./EventsTable.css";
import type { AuditEvent } from "../api/client";
import { Card } from "./EventCards";
import type { Filters } from "../filters";
import { show } from "../state";
import { browserZone, formatTime, useTimeZone } from "../time";

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
    <div className="al-diff" data-testid="diff-preview">
      {entries.slice(0, 4).map(([k, c]) => (
        <div key={k}>
          {k}: {show(c.from)} → {show(c.to)}
        </div>
      ))}
      {entries.length > 4 && <div className="al-dimmed">and {entries.length - 4} more</div>}
    </div>
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

/** Row is one event. Plain elements styled by EventsTable.css, not
 * Mantine components: 50 rows of those took about 140 ms of script to
 * render on the benchmark machine, a third of the time to first rows. */
function Row({ e, zone, operator, filter, onOpen, tabStop }: {
  e: AuditEvent; zone: string; operator: boolean; filter: (f: Partial<Filters>) => void; onOpen: (id: string) => void; tabStop: boolean;
}) {
  const on = (f: Partial<Filters>) => (ev: React.MouseEvent) => {
    ev.stopPropagation();
    filter(f);
  };
  return (
    <tr className="al-row" data-testid="event-row" data-id={e.id} tabIndex={tabStop ? 0 : -1} aria-label={`Open the ${e.action} of ${e.resource.type} by ${e.actor.email}`}
      onClick={() => onOpen(e.id)} onKeyDown={(ev) => { if (ev.key === "Enter" && ev.target === ev.currentTarget) onOpen(e.id); }}>
      <td title={formatTime(e.timestamp, zone === "UTC" ? browserZone() : "UTC")} className="al-nowrap">{formatTime(e.timestamp, zone)}</td>
      <td>
        <button type="button" tabIndex={-1} className="al-link" onClick={on({ actorEmail: e.actor.email })}>{e.actor.email}</button>
        {e.crossTenant && <span className="al-badge al-badge-operator" data-testid="cross-tenant">operator team</span>}
      </td>
      <td><span className="al-badge">{e.action}</span></td>
      <td className="al-nowrap">
        <button type="button" tabIndex={-1} className="al-link" onClick={on({ resourceType: [e.resource.type] })}>{e.resource.type}</button>{" "}
        <button type="button" tabIndex={-1} className="al-link al-id" aria-label={`Filter on resource ${e.resource.id}`} onClick={on({ resourceId: e.resource.id })}>
          <code>{e.resource.id.slice(0, 8)}</code>
        </button>
      </td>
      <td><span className={`al-outcome al-outcome-${e.outcome === "failure" ? "failure" : "success"}`}>{e.outcome ?? "success"}</span></td>
      {operator && <td>{e.reason}</td>}
      <td>
        <DiffPreview e={e} />
        {!operator && e.reason && <div data-testid="row-reason">Reason: {e.reason}</div>}
      </td>
    </tr>
  );
}

/** focusRow moves the focus to the row at i of the table holding from. */
function focusRow(from: HTMLElement, i: number) {
  const rows = from.closest("[data-testid=events]")?.querySelectorAll<HTMLElement>("[data-testid=event-row]") ?? [];
  rows[Math.max(0, Math.min(i, rows.length - 1))]?.focus();
}

/** EventsTable lists events; a column header sorts, a value filters. The
 * rows are one tab stop (roving focus): Tab enters the table at the last
 * row focused, the arrows, Home and End move between rows, Enter opens
 * one, and the next Tab leaves the table. A row's links (filter on this
 * user, this resource) are for the pointer: the drawer's pivots do the
 * same from the keyboard. At phone width the events are cards
 * (EventCards.tsx) with the same keys, each one tap target (no links:
 * the drawer's pivots filter); sorting is in the filters' sheet. */
export function EventsTable({ events, loading, busy, filters, operator, onFilter, onOpen }: Props) {
  const [zone] = useTimeZone();
  const [active, setActive] = useState(0);
  const phone = useMediaQuery("(max-width: 40em)", false, { getInitialValueInEffect: false });
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
  const order = (field: Filters["sort"]) => (filters.sort !== field ? undefined : (filters.order ?? (field === "timestamp" ? "desc" : "asc")));
  const keys = (ev: React.KeyboardEvent<HTMLElement>) => {
    const row = (ev.target as HTMLElement).closest<HTMLElement>("[data-testid=event-row]");
    if (!row) return;
    const i = events.findIndex((e) => e.id === row.dataset.id);
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: events.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    focusRow(row, to);
  };
  const focus = (ev: React.FocusEvent) => {
    const i = events.findIndex((e) => e.id === (ev.target as HTMLElement).dataset.id);
    if (i >= 0) setActive(i);
  };
  const filter = (f: Partial<Filters>) => onFilter({ ...filters, ...f });
  if (phone)
    return (
      <ul className="al-cards" data-testid="events" aria-label="Events" aria-busy={busy} style={{ opacity: busy ? 0.6 : 1 }} onKeyDown={keys} onFocus={focus}>
        {events.map((e, i) => (
          <Card key={e.id} e={e} zone={zone} onOpen={onOpen} tabStop={i === Math.min(active, events.length - 1)} />
        ))}
      </ul>
    );
  const arrow = (field: Filters["sort"]) => (filters.sort !== field ? "" : (filters.order ?? (field === "timestamp" ? "desc" : "asc")) === "desc" ? " ▼" : " ▲");
  return (
    <Table.ScrollContainer minWidth={0} className="al-scroll">
    <Table data-testid="events" aria-busy={busy} style={{ opacity: busy ? 0.6 : 1 }}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((c) => (
            <Table.Th key={c.field} aria-sort={order(c.field) === "asc" ? "ascending" : order(c.field) === "desc" ? "descending" : "none"}>
              <UnstyledButton fw={600} onClick={() => sortBy(c.field)} data-testid={`sort-${c.field}`}>{c.label}{arrow(c.field)}</UnstyledButton>
            </Table.Th>
          ))}
          <Table.Th>Outcome</Table.Th>
          {operator && <Table.Th>Declared reason</Table.Th>}
          <Table.Th>Changes</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody onKeyDown={keys} onFocus={focus}>
        {events.map((e, i) => (
          <Row key={e.id} e={e} zone={zone} operator={operator} filter={filter} onOpen={onOpen} tabStop={i === Math.min(active, events.length - 1)} />
        ))}
      </Table.Tbody>
    </Table>
    </Table.ScrollContainer>
  );
}
