import { ActionIcon, Button, Code, Group, MultiSelect, Popover, SegmentedControl, Select, Stack, Switch, Text, TextInput, rem } from "@mantine/core";
import { useEffect, useState } from "react";
import type { AuditEvent } from "../api/client";
import { defaultFilters, systemKinds, type Filters } from "../filters";
import { qualifiers, searchExamples } from "../searchHelp";
import { looksFinished, searchPause } from "../searchInput";
import { fromZonedInput, toZonedInput, useTimeZone } from "../time";

/** SearchHelp explains the search language, with examples that fill the
 * box when clicked. */
function SearchHelp({ onPick, sample }: { onPick: (q: string) => void; sample?: AuditEvent }) {
  return (
    <Popover width={380} position="bottom-end" withinPortal>
      <Popover.Target>
        <ActionIcon variant="subtle" size="sm" aria-label="How to search" data-testid="search-help">
          {/* An icon, not a "?" glyph: a one-character text is a contrast axe cannot decide. */}
          <svg width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
            <circle cx="8" cy="8" r="6.6" /><path d="M6.1 6.2a2 2 0 1 1 2.6 1.9c-.5.2-.7.6-.7 1.1v.5" strokeLinecap="round" /><circle cx="8" cy="11.6" r=".5" fill="currentColor" />
          </svg>
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap={6}>
          <Text size="sm" fw={600}>Words, prefixes (grace*), or field:value</Text>
          {searchExamples(new Date(), sample).map((x) => (
            <div key={x.query}>
              <button type="button" className="al-link" onClick={() => onPick(x.query)} data-testid="search-example"><Code>{x.query}</Code></button>
              <Text size="xs" c="dimmed">{x.means}</Text>
            </div>
          ))}
          <Text size="xs">Fields: {qualifiers.join(", ")}. Case and accents do not count (jose finds José). At most 16 terms, 512 characters; a prefix (*) ends one word of 2 characters or more.</Text>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

const actions = ["create", "update", "delete", "access"];
const kinds = [
  "agent", "queue", "ivr", "recording_policy", "user_role", "integration", "did", "recording", "transcript", "audit_export", "audit_log",
  "session", "user_mfa", "user_credentials", "crm_connection", "transcript_push", "webhook_delivery", "restore_request",
  ...systemKinds, // the service's own records
];


/** Sizes of the bar's items, in px at the default scale: the real bar
 * fixes the widths, and FilterBarSkeleton draws boxes of the same widths
 * and of the items' heights, so that both wrap alike at every width. */
const W = { range: 256, date: 200, email: 200, action: 200, kind: 240, id: 300, outcome: 130, search: 200, operator: 264, system: 200, reset: 76 };
/** oneLine keeps a multi-select one line high whatever it holds: the
 * chosen values scroll sideways instead of growing the bar. */
const oneLine = { pillsList: { flexWrap: "nowrap", overflowX: "auto", scrollbarWidth: "none" }, inputField: { minWidth: rem(32) } } as const;
const H = { range: 35.7, input: 60.8, operator: 20, reset: 36 };

/** FilterBarSkeleton holds the filter bar's place until it renders: its
 * comboboxes cost about 100 ms of script on a first visit, so the bar
 * comes in the frame after the first rows. Plain boxes cost nothing, and
 * nothing below moves when the bar replaces them. */
export function FilterBarSkeleton({ custom, operator }: { custom: boolean; operator: boolean }) {
  const items: [number, number][] = [[W.range, H.range]];
  if (custom) items.push([W.date, H.input], [W.date, H.input]);
  items.push([W.email, H.input], [W.action, H.input], [W.kind, H.input], [W.id, H.input], [W.outcome, H.input], [W.search, H.input]);
  if (!operator) items.push([W.operator, H.operator]);
  items.push([W.system, H.operator], [W.reset, H.reset]);
  return (
    <Group align="end" gap="sm" wrap="wrap" data-testid="filters" data-skeleton aria-hidden>
      {items.map(([w, h], i) => <div key={i} style={{ width: rem(w), height: rem(h) }} />)}
    </Group>
  );
}

/** FilterBar edits the filters; text fields apply when typing pauses,
 * the search on Enter or on a pause once it looks finished
 * (searchInput.ts). searchError is the service's word on the search
 * last sent, shown under the box. */
export function FilterBar({ filters, onChange, operator, searchError, sample, full }: {
  filters: Filters; onChange: (f: Filters) => void; operator: boolean; searchError?: string; sample?: AuditEvent;
  /** full: one item a line, each as wide as the bar (the phone's sheet). */
  full?: boolean;
}) {
  const [zone] = useTimeZone();
  const w = (px: number) => (full ? "100%" : px);
  const [text, setText] = useState({ actorEmail: filters.actorEmail ?? "", resourceId: filters.resourceId ?? "", q: filters.q ?? "" });
  useEffect(() => setText({ actorEmail: filters.actorEmail ?? "", resourceId: filters.resourceId ?? "", q: filters.q ?? "" }),
    [filters.actorEmail, filters.resourceId, filters.q]);
  const apply = (q: string | undefined) => {
    const next = { actorEmail: text.actorEmail.trim() || undefined, resourceId: text.resourceId.trim() || undefined, q: q?.trim() || undefined };
    if (next.actorEmail !== filters.actorEmail || next.resourceId !== filters.resourceId || next.q !== filters.q) onChange({ ...filters, ...next });
  };
  useEffect(() => {
    const q = looksFinished(text.q) ? text.q : filters.q;
    const t = setTimeout(() => apply(q), text.q !== (filters.q ?? "") ? searchPause : 400);
    return () => clearTimeout(t);
  });
  const search = (
    <TextInput label="Search" w={w(W.search)} placeholder="paste an IP, e-mail, id; words; actor:grace*" value={text.q} onChange={(e) => setText({ ...text, q: e.currentTarget.value })}
      onKeyDown={(e) => e.key === "Enter" && apply(text.q)} error={searchError} data-testid="search"
      rightSection={<SearchHelp sample={sample} onPick={(q) => setText({ ...text, q })} />} />
  );
  return (
    <Group align="end" gap="sm" wrap="wrap" data-testid="filters">
      {/* First in the phone's sheet, what an investigator reaches for: first
          in the document too, so the tab order is the order on screen. */}
      {full && search}
      <SegmentedControl w={w(W.range)} fullWidth={full}
        value={filters.range}
        onChange={(v) => onChange({ ...filters, range: v as Filters["range"], from: filters.from, to: filters.to })}
        data={[{ value: "24h", label: "24 h" }, { value: "7d", label: "7 d" }, { value: "30d", label: "30 d" }, { value: "all", label: "All" }, { value: "custom", label: "Custom" }]}
      />
      {filters.range === "custom" && (
        <>
          <TextInput type="datetime-local" label="From" w={w(W.date)} value={toZonedInput(filters.from, zone)} onChange={(e) => onChange({ ...filters, from: fromZonedInput(e.currentTarget.value, zone) })} />
          <TextInput type="datetime-local" label="To" w={w(W.date)} value={toZonedInput(filters.to, zone)} onChange={(e) => onChange({ ...filters, to: fromZonedInput(e.currentTarget.value, zone) })} />
        </>
      )}
      <TextInput label="User e-mail" w={w(W.email)} placeholder="name@company.com" value={text.actorEmail} onChange={(e) => setText({ ...text, actorEmail: e.currentTarget.value })} />
      <MultiSelect label="Action" data={actions} value={filters.action} onChange={(v) => onChange({ ...filters, action: v })} clearable w={w(W.action)} styles={oneLine} />
      <MultiSelect label="Resource kind" data={kinds} value={filters.resourceType} onChange={(v) => onChange({ ...filters, resourceType: v })} searchable clearable w={w(W.kind)} styles={oneLine} />
      <TextInput label="Resource ID" value={text.resourceId} onChange={(e) => setText({ ...text, resourceId: e.currentTarget.value })} w={w(W.id)} />
      <Select label="Outcome" data={["success", "failure"]} value={filters.outcome ?? null} onChange={(v) => onChange({ ...filters, outcome: (v ?? undefined) as Filters["outcome"] })} clearable w={w(W.outcome)} />
      {!full && search}
      {!operator && (
        <Switch label="Operator team only (cross_tenant)" w={w(W.operator)} checked={filters.crossTenant === true}
          onChange={(e) => onChange({ ...filters, crossTenant: e.currentTarget.checked ? true : undefined })} />
      )}
      <Switch label="Service's own records" w={w(W.system)} checked={filters.system === true} data-testid="show-system"
        onChange={(e) => onChange({ ...filters, system: e.currentTarget.checked ? true : undefined })} />
      <Button variant="subtle" w={w(W.reset)} onClick={() => onChange({ ...defaultFilters })}>Reset</Button>
    </Group>
  );
}
