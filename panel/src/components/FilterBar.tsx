import { Button, Group, MultiSelect, SegmentedControl, Select, Switch, TextInput } from "@mantine/core";
import { useEffect, useState } from "react";
import { defaultFilters, type Filters } from "../filters";

const actions = ["create", "update", "delete", "access"];
const kinds = [
  "agent", "queue", "ivr", "recording_policy", "user_role", "integration", "did", "recording", "transcript", "audit_export", "audit_log",
  "session", "user_mfa", "user_credentials", "crm_connection", "transcript_push", "webhook_delivery", "restore_request",
];

/** toLocalInput and fromLocalInput convert between ISO instants and the
 * value of a datetime-local input (the viewer's zone). */
const toLocalInput = (iso?: string) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : undefined);

/** FilterBar edits the filters; text fields apply when typing pauses.
 * With skeleton, the comboboxes (about 100 ms of script on a first
 * visit) are read-only text inputs of the same label and width: the bar
 * then takes exactly the place the real one will, at every width, so
 * that nothing below it moves when the real one replaces it. */
export function FilterBar({ filters, onChange, operator, skeleton = false }: { filters: Filters; onChange: (f: Filters) => void; operator: boolean; skeleton?: boolean }) {
  const [text, setText] = useState({ actorEmail: filters.actorEmail ?? "", resourceId: filters.resourceId ?? "", q: filters.q ?? "" });
  useEffect(() => setText({ actorEmail: filters.actorEmail ?? "", resourceId: filters.resourceId ?? "", q: filters.q ?? "" }),
    [filters.actorEmail, filters.resourceId, filters.q]);
  useEffect(() => {
    const t = setTimeout(() => {
      const next = { actorEmail: text.actorEmail.trim() || undefined, resourceId: text.resourceId.trim() || undefined, q: text.q.trim() || undefined };
      if (next.actorEmail !== filters.actorEmail || next.resourceId !== filters.resourceId || next.q !== filters.q) onChange({ ...filters, ...next });
    }, 400);
    return () => clearTimeout(t);
  });
  return (
    <Group align="end" gap="sm" wrap="wrap" data-testid="filters" data-skeleton={skeleton || undefined}>
      <SegmentedControl
        value={filters.range}
        onChange={(v) => onChange({ ...filters, range: v as Filters["range"], from: filters.from, to: filters.to })}
        data={[{ value: "24h", label: "24 h" }, { value: "7d", label: "7 d" }, { value: "30d", label: "30 d" }, { value: "all", label: "All" }, { value: "custom", label: "Custom" }]}
      />
      {filters.range === "custom" && (
        <>
          <TextInput type="datetime-local" label="From" value={toLocalInput(filters.from)} onChange={(e) => onChange({ ...filters, from: fromLocalInput(e.currentTarget.value) })} />
          <TextInput type="datetime-local" label="To" value={toLocalInput(filters.to)} onChange={(e) => onChange({ ...filters, to: fromLocalInput(e.currentTarget.value) })} />
        </>
      )}
      <TextInput label="User e-mail" placeholder="name@company.com" value={text.actorEmail} onChange={(e) => setText({ ...text, actorEmail: e.currentTarget.value })} />
      {skeleton ? <TextInput label="Action" value={filters.action.join(", ")} readOnly w={200} /> :
        <MultiSelect label="Action" data={actions} value={filters.action} onChange={(v) => onChange({ ...filters, action: v })} clearable w={200} />}
      {skeleton ? <TextInput label="Resource kind" value={filters.resourceType.join(", ")} readOnly w={240} /> :
        <MultiSelect label="Resource kind" data={kinds} value={filters.resourceType} onChange={(v) => onChange({ ...filters, resourceType: v })} searchable clearable w={240} />}
      <TextInput label="Resource ID" value={text.resourceId} onChange={(e) => setText({ ...text, resourceId: e.currentTarget.value })} w={300} />
      {skeleton ? <TextInput label="Outcome" value={filters.outcome ?? ""} readOnly w={130} /> :
        <Select label="Outcome" data={["success", "failure"]} value={filters.outcome ?? null} onChange={(v) => onChange({ ...filters, outcome: (v ?? undefined) as Filters["outcome"] })} clearable w={130} />}
      <TextInput label="Search" placeholder="words, prefix*" value={text.q} onChange={(e) => setText({ ...text, q: e.currentTarget.value })} />
      {!operator && (
        <Switch label="Operator team only (cross_tenant)" checked={filters.crossTenant === true}
          onChange={(e) => onChange({ ...filters, crossTenant: e.currentTarget.checked ? true : undefined })} />
      )}
      <Button variant="subtle" onClick={() => onChange({ ...defaultFilters })}>Reset</Button>
    </Group>
  );
}
