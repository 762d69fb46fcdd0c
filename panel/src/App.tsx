import { Badge, Container, Group, Loader, SegmentedControl, Text, Title } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { lazy, Suspense, useSyncExternalStore } from "react";
import { auth } from "./auth";
import { ReasonPrompt, TokenPrompt } from "./components/TokenPrompt";
import { EventsView } from "./components/EventsView";
import { filtersSearch, parseFilters } from "./filters";
import { navigate, useSearch } from "./location";
import { PhoneHeader, views, ZonePicker } from "./components/Header";
import { useTimeZone } from "./time";
import { HoldRole } from "./holds";

// The first view (the log) is in the main bundle; the exports view and
// the event drawer (compare, history, restore) load when first opened, so
// that a first visit parses and runs less before its rows show.
const ExportsView = lazy(() => import("./components/ExportsView").then((m) => ({ default: m.ExportsView })));
const PeriodicView = lazy(() => import("./components/PeriodicView").then((m) => ({ default: m.PeriodicView })));
const StreamsView = lazy(() => import("./components/StreamsView").then((m) => ({ default: m.StreamsView })));
const HoldsView = lazy(() => import("./components/HoldsView").then((m) => ({ default: m.HoldsView })));
const EventDrawer = lazy(() => import("./components/EventDrawer").then((m) => ({ default: m.EventDrawer })));

export type View = "events" | "operator" | "exports" | "periodic" | "streams" | "holds";

export function App() {
  const a = useSyncExternalStore(auth.subscribe, auth.state);
  const search = useSearch();
  const [zone, setZone] = useTimeZone();
  const phone = useMediaQuery("(max-width: 40em)", false, { getInitialValueInEffect: false });
  if (!a.token || a.expired) return <TokenPrompt expired={a.token ? a.expired : null} problem={a.token ? null : a.expired} />;
  if (auth.needsReason()) return <ReasonPrompt />;
  const p = new URLSearchParams(search);
  // A tenant's legal_hold role reaches its holds only (the service refuses
  // it the rest).
  const holder = a.claims?.role === HoldRole;
  const view = (holder ? "holds" : ["events", "operator", "exports", "periodic", "streams", "holds"].includes(p.get("view") ?? "") ? p.get("view") : "events") as View;
  const event = p.get("event");
  const who = `${a.claims?.email ?? "signed in"} · ${a.claims?.role}`;
  const setView = (v: string) => navigate(filtersSearch(parseFilters(search), { view: v === "events" ? undefined : v }));
  return (
    <Container fluid p={phone ? "xs" : "md"}>
      {phone ? <PhoneHeader view={view} setView={setView} zone={zone} setZone={setZone} who={who} reason={a.reason} holder={holder} /> : (
        <Group justify="space-between" pb="sm" mb="md" gap="sm" style={{ borderBottom: "1px solid var(--mantine-color-gray-3)" }}>
          <Group gap="sm">
            <Title order={3}>Settings · Audit</Title>
            <SegmentedControl value={view} onChange={setView} data={views(false, holder)} />
          </Group>
          <Group gap="sm">
            <ZonePicker zone={zone} setZone={setZone} w={200} />
            <Badge variant="light" tt="none" style={{ maxWidth: "100%" }}>{who}</Badge>
            {/* The operator team reads a tenant's log for a declared reason: it
                stays in view, as it is recorded with every request. */}
            {a.reason && <Text size="sm" data-testid="declared-reason" style={{ overflowWrap: "anywhere" }}>Reason: {a.reason}</Text>}
          </Group>
        </Group>
      )}
      <main>
        {view === "exports" || view === "periodic" || view === "streams" || view === "holds" ? (
          <Suspense fallback={<Loader aria-label="Loading" />}>
            {view === "exports" ? <ExportsView /> : view === "periodic" ? <PeriodicView /> : view === "holds" ? <HoldsView /> : <StreamsView />}
          </Suspense>
        ) : <EventsView operator={view === "operator"} />}
        {/* Its own boundary: the table stays while the drawer loads. */}
        {event && (
          <Suspense fallback={null}>
            <EventDrawer id={event} />
          </Suspense>
        )}
      </main>
    </Container>
  );
}
