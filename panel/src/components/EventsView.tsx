import { Alert, Button, Code, Group, Stack, Switch, Text } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { ApiError, api, must, type AuditEvent } from "../api/client";
import { activeFilters, filtersSearch, parseFilters, type Filters } from "../filters";
import { firstNow, listQuery, listRequest, viewFilters, type Page } from "../firstView";
import { navigate, useSearch } from "../location";
import { useAfterPaint, useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";
import { EventsTable } from "./EventsTable";
import { ExportButton } from "./ExportButton";
import { FilterBar, FilterBarSkeleton } from "./FilterBar";
import { Histogram } from "./Histogram";
import { SavedSearches } from "./SavedSearches";
import { UserCounts } from "./UserCounts";

// The phone's sheet (a drawer) loads when first opened: the first view's
// bundle stays the size it was.
const FilterSheet = lazy(() => import("./FilterSheet").then((m) => ({ default: m.FilterSheet })));

/** EventsView is the log: filters, histogram, table, load more, follow
 * mode. The operator view is the same, fixed to crossTenant=true. */
export function EventsView({ operator }: { operator: boolean }) {
  const search = useSearch();
  const f0 = parseFilters(search);
  const filters = viewFilters(search, operator);
  const extra = Object.fromEntries(new URLSearchParams(search));
  const setFilters = (f: Filters) => navigate(filtersSearch(f, { view: extra.view }));
  const key = filtersSearch(filters);
  const [now] = useState(firstNow);
  const query = (f: Filters) => listQuery(f, now);
  const list = listRequest(filters, now);
  const first = useAsync<Page>(list.load, list.key);
  const [more, setMore] = useState<Page>({ events: [] });
  const [moreError, setMoreError] = useState<unknown>();
  const [follow, setFollow] = useState(false);
  const [fresh, setFresh] = useState<AuditEvent[]>([]);
  useEffect(() => {
    setMore({ events: [] });
    setFresh([]);
  }, [key]);
  const page = first.error ? undefined : first.data;
  // A search the service refuses is said under the search box (and in
  // the table's place, for a phone whose filters are folded).
  const searchError = first.error instanceof ApiError && first.error.status === 400
    ? (first.error.problem?.errors ?? []).filter((e) => e.field === "q").map((e) => e.message).join("; ") || undefined : undefined;
  // The filter bar (its comboboxes: about 100 ms of script on a first
  // visit) renders in the frame after the first page of rows, so that the
  // rows do not wait for it; until then a skeleton of the same size keeps
  // its place, so the histogram and the rows never move.
  const barShown = useAfterPaint(page !== undefined || first.error !== undefined);
  // On a phone the filters, the order, following and saved searches are
  // in a sheet behind one button that counts the filters, so that the
  // first screen shows events (six or more at 390×844).
  const phone = useMediaQuery("(max-width: 40em)", false, { getInitialValueInEffect: false });
  const [unfolded, setUnfolded] = useState(false);
  const [sheetLoaded, setSheetLoaded] = useState(false);
  // Closing the sheet returns the focus to its button: Mantine's own
  // return misses a drawer that mounts open, as this lazy one first does.
  const toggle = useRef<HTMLButtonElement>(null);
  const closeSheet = () => {
    setUnfolded(false);
    toggle.current?.focus();
  };
  const active = activeFilters(filters, operator);
  // Followed events can repeat the newest one (from is inclusive).
  const seen = new Set<string>();
  const shown = [...fresh, ...(page?.events ?? []), ...more.events].filter((e) => !seen.has(e.id) && seen.add(e.id));
  // The count follows too: the events followed in since the first page
  // was counted are added to its total.
  const followed = shown.length - new Set([...(page?.events ?? []), ...more.events].map((e) => e.id)).size;
  const cursor = more.events.length ? more.cursor : page?.cursor;
  const newest = shown[0]?.timestamp;
  const canFollow = filters.sort === "timestamp" && filters.order !== "asc";
  useEffect(() => {
    if (!follow || !canFollow) return;
    const t = setInterval(async () => {
      try {
        const q = { ...query({ ...filters, range: newest ? "all" : filters.range }), ...(newest ? { from: newest } : {}), pageSize: 200 };
        const r = await must(api.GET("/api/audit-logs", { params: { query: q } }));
        if (r.data.length) setFresh((x) => [...r.data, ...x]);
      } catch {
        /* the next tick retries; the table keeps what it has */
      }
    }, 3000);
    return () => clearInterval(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [follow, canFollow, key, newest]);
  const loadMore = async () => {
    try {
      const r = await must(api.GET("/api/audit-logs", { params: { query: { ...query(filters), cursor: cursor ?? undefined } } }));
      setMore((m) => ({ events: [...m.events, ...r.data], cursor: r.nextCursor, unreadable: [...(m.unreadable ?? []), ...(r.unreadable ?? [])] }));
    } catch (e) {
      setMoreError(e);
    }
  };
  const count = (page?.total ?? 0) + followed;
  const unreadable = [...(page?.unreadable ?? []), ...(more.unreadable ?? [])];
  const totalText = page ? `${page.relation === "gte" ? "at least " : ""}${count} ${count === 1 && page.relation !== "gte" ? "event" : "events"}` : " ";
  const bar = (full?: boolean) => <FilterBar filters={filters} onChange={setFilters} operator={operator} searchError={searchError} sample={shown[0]} full={full} />;
  const counts = filters.sort === "actor.email" && !filters.actorEmail && <UserCounts filters={filters} now={now} onUser={(actorEmail) => setFilters({ ...filters, actorEmail })} />;
  return (
    <Stack gap={phone ? "xs" : undefined}>
      {phone ? (
        <>
          {sheetLoaded && (
            <Suspense fallback={null}>
              <FilterSheet opened={unfolded} onClose={closeSheet} filters={filters} onChange={setFilters} follow={follow} onFollow={setFollow} canFollow={canFollow} total={totalText}>
                {bar(true)}
                <SavedSearches filters={filters} />
              </FilterSheet>
            </Suspense>
          )}
          <Group gap="xs" wrap="nowrap">
            <Button ref={toggle} variant="default" onClick={() => { setSheetLoaded(true); setUnfolded(true); }} aria-expanded={unfolded} data-testid="filters-toggle" style={{ flexShrink: 0 }}>
              {`Filters${active ? ` (${active} active)` : ""}`}
            </Button>
            <Text size="sm" c="dimmed" data-testid="total" style={{ flex: 1 }}>{totalText}</Text>
            <ExportButton filters={filters} now={now} total={page?.total} compact />
          </Group>
          {counts}
        </>
      ) : barShown ? bar() : <FilterBarSkeleton custom={filters.range === "custom"} operator={operator} />}
      <Histogram filters={filters} now={now} compact={phone} onRange={(from, to) => setFilters({ ...filters, range: "custom", from, to })} />
      {!phone && (
        <Group justify="space-between" gap="xs">
          <Text size="sm" c="dimmed" data-testid="total">{totalText}</Text>
          <Group gap="xs" wrap="wrap" justify="flex-end">
            <Switch label="Follow new events" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} data-testid="follow" disabled={!canFollow} />
            {counts}
            <SavedSearches filters={filters} />
            <ExportButton filters={filters} now={now} total={page?.total} />
          </Group>
        </Group>
      )}
      {page?.total === 0 && (page.suggestions?.length ?? 0) > 0 && (
        <Group gap="xs" data-testid="suggestions">
          <Text size="sm">Nothing matches this search as typed. Read another way:</Text>
          {page.suggestions!.map((s) => (
            <Button key={s.q} size="compact-sm" variant="light" onClick={() => setFilters({ ...filters, q: s.q })} data-testid="suggestion">
              {`${s.q} finds ${s.total.relation === "gte" ? "at least " : ""}${s.total.value.toLocaleString("en-US")}`}
            </Button>
          ))}
        </Group>
      )}
      {unreadable.length > 0 && (
        <Alert color="red" title="Stored events that are no events" data-testid="unreadable">
          {`${unreadable.length === 1 ? "A stored row" : `${unreadable.length} stored rows`} here cannot be read as an event (edited behind the service: evidence): `}
          {unreadable.map((u) => u.id).join(", ")}. <Code>auditlog log verify</Code> names each.
        </Alert>
      )}
      {searchError ? (
        <Text size="sm" c="red.9" data-testid="search-error">The search is not valid: {searchError}</Text>
      ) : first.error ? (
        <ErrorState error={first.error} retry={first.reload} />
      ) : (
        <EventsTable events={shown} loading={first.loading && !page} busy={first.loading} filters={filters} onFilter={setFilters} operator={operator}
          onOpen={(id) => navigate(filtersSearch(f0, { ...extra, event: id }))} />
      )}
      {moreError !== undefined && <ErrorState error={moreError} retry={() => { setMoreError(undefined); void loadMore(); }} />}
      {cursor && !first.error && (
        <Button variant="light" onClick={loadMore} data-testid="load-more">Load more</Button>
      )}
    </Stack>
  );
}
