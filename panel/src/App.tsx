import { Badge, Container, Group, SegmentedControl, Switch, Title } from "@mantine/core";
import { useSyncExternalStore } from "react";
import { auth } from "./auth";
import { ReasonPrompt, TokenPrompt } from "./components/TokenPrompt";
import { EventsView } from "./components/EventsView";
import { ExportsView } from "./components/ExportsView";
import { EventDrawer } from "./components/EventDrawer";
import { filtersSearch, parseFilters } from "./filters";
import { navigate, useSearch } from "./location";
import { useTimeZone } from "./time";

export type View = "events" | "operator" | "exports";

export function App() {
  const a = useSyncExternalStore(auth.subscribe, auth.state);
  const search = useSearch();
  const [utc, setUtc] = useTimeZone();
  if (!a.token || a.expired) return <TokenPrompt expired={a.token ? a.expired : null} problem={a.token ? null : a.expired} />;
  if (auth.needsReason()) return <ReasonPrompt />;
  const p = new URLSearchParams(search);
  const view = (["events", "operator", "exports"].includes(p.get("view") ?? "") ? p.get("view") : "events") as View;
  const event = p.get("event");
  const setView = (v: string) => navigate(filtersSearch(parseFilters(search), { view: v === "events" ? undefined : v }));
  return (
    <Container fluid p="md">
      <Group justify="space-between" pb="sm" mb="md" gap="sm" style={{ borderBottom: "1px solid var(--mantine-color-gray-3)" }}>
        <Group gap="sm">
          <Title order={3}>Settings · Audit</Title>
          <SegmentedControl
            value={view}
            onChange={setView}
            data={[{ value: "events", label: "Events" }, { value: "operator", label: "Operator accesses" }, { value: "exports", label: "Exports" }]}
          />
        </Group>
        <Group gap="sm">
          <Switch label="UTC" checked={utc} onChange={(e) => setUtc(e.currentTarget.checked)} />
          <Badge variant="light">{a.claims?.email ?? "signed in"} · {a.claims?.role}</Badge>
        </Group>
      </Group>
      <main>
        {view === "exports" ? <ExportsView /> : <EventsView operator={view === "operator"} />}
        {event && <EventDrawer id={event} />}
      </main>
    </Container>
  );
}
