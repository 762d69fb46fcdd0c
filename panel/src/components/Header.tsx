import { Group, SegmentedControl, Select, Text, Title } from "@mantine/core";
import { zones } from "../time";

/** views are the panel's tabs, with shorter names on a phone; a holder
 * (the legal_hold role) has only its holds. */
export const views = (phone: boolean, holder = false) => holder ? [{ value: "holds", label: "Legal holds" }] : [
  { value: "events", label: "Events" }, { value: "operator", label: phone ? "Operator" : "Operator accesses" },
  { value: "exports", label: "Exports" }, { value: "periodic", label: phone ? "Periodic" : "Periodic exports" },
  { value: "streams", label: "Streams" }, { value: "holds", label: phone ? "Holds" : "Legal holds" },
];

/** ZonePicker chooses the zone every time is shown in. */
export function ZonePicker({ zone, setZone, w, size }: { zone: string; setZone: (z: string) => void; w: number; size?: string }) {
  return (
    <Select aria-label="Time zone" data-testid="zone" data={zones().includes(zone) ? zones() : [zone, ...zones()]} value={zone} onChange={(v) => v && setZone(v)}
      searchable allowDeselect={false} w={w} size={size} comboboxProps={{ width: 260 }} />
  );
}

/** PhoneHeader is the header at phone width, in three short lines: the
 * title and the zone, the tabs, who is signed in and (for the operator
 * team) the declared reason, which stays in view as on a wide screen. */
export function PhoneHeader({ view, setView, zone, setZone, who, reason, holder }: {
  view: string; setView: (v: string) => void; zone: string; setZone: (z: string) => void; who: string; reason?: string | null; holder?: boolean;
}) {
  return (
    <header style={{ borderBottom: "1px solid var(--mantine-color-gray-3)", paddingBottom: 6, marginBottom: 8 }}>
      <Group justify="space-between" gap="xs" wrap="nowrap" mb={6}>
        <Title order={4}>Settings · Audit</Title>
        <ZonePicker zone={zone} setZone={setZone} w={170} size="xs" />
      </Group>
      <SegmentedControl value={view} onChange={setView} data={views(true, holder)} fullWidth size="xs" />
      <Text size="xs" c="dimmed" mt={4} style={{ overflowWrap: "anywhere" }}>
        {who}
        {reason && <span data-testid="declared-reason"> · Reason: {reason}</span>}
      </Text>
    </header>
  );
}
