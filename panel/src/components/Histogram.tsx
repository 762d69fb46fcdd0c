import { Box, Group, Text } from "@mantine/core";
import { useRef, useState } from "react";
import { type Filters } from "../filters";
import { statsRequest } from "../firstView";
import { formatTime, useTimeZone } from "../time";
import { useAsync } from "../useAsync";

/** axisTime is a bucket's start in zone, to the minute ("2026-11-11 08:00"),
 * or to the day for buckets of a day or more. */
const axisTime = (iso: string, zone: string, days: boolean) => formatTime(iso, zone).slice(0, days ? 10 : 16);

const noStats = async () => undefined;

/** Histogram draws the events over time for the filters (GET /stats);
 * dragging across it narrows the date filter to the range dragged. */
export function Histogram({ filters, now, onRange, compact }: { filters: Filters; now: Date; onRange: (from: string, to: string) => void; compact?: boolean }) {
  const req = statsRequest(filters, now);
  const { interval, toMs } = req;
  const stats = useAsync(req.load, req.key);
  // A search refused before any bars were drawn (a link or a reload with
  // a search that does not parse): the window's bars without the search,
  // dimmed as a kept histogram is, rather than an empty chart.
  const bare = stats.error !== undefined && stats.data === undefined && filters.q ? statsRequest({ ...filters, q: undefined }, now) : undefined;
  const unsearched = useAsync(bare?.load ?? noStats, bare?.key ?? "none");
  const [zone] = useTimeZone();
  const days = interval.endsWith("d");
  const ref = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ a: number; b: number } | null>(null);
  const bars = (stats.data ?? (bare ? unsearched.data : undefined))?.histogram ?? [];
  // On an error (a search that does not parse, say) the bars last drawn
  // stay, dimmed: the table says what went wrong.
  const stale = stats.error !== undefined;
  const max = Math.max(1, ...bars.map((b) => b.count));
  const W = 1000;
  // A phone keeps its first screen for the events: lower bars, and the
  // caption (also the chart's label) left out.
  const H = compact ? 44 : 80;
  // Bars are placed by time: the last bucket of an open window ends now,
  // so it is drawn as wide as the part of it that has passed (issue 42).
  const starts = bars.map((b) => Date.parse(b.start));
  const t0 = starts[0] ?? 0;
  const last = starts.at(-1) ?? 0;
  const step = starts.length > 1 ? starts[1]! - t0 : Math.max(toMs - t0, 1);
  // The last bar ends a step after its start, or now if that is sooner.
  const t1 = Math.max(Math.min(last + step, toMs), last + 1);
  const px = (t: number) => ((t - t0) / Math.max(t1 - t0, 1)) * W;
  const spans = bars.map((b, i) => ({ b, x: px(starts[i]!), w: px(starts[i + 1] ?? t1) - px(starts[i]!) }));
  /** at is the index of the bar under x (the last one past the end). */
  const at = (x: number) => {
    const i = spans.findIndex((s) => x < s.x + s.w);
    return i === -1 ? spans.length - 1 : i;
  };
  const x = (e: React.MouseEvent) => {
    const r = ref.current!.getBoundingClientRect();
    return Math.min(Math.max(((e.clientX - r.left) / r.width) * W, 0), W);
  };
  const finish = () => {
    if (drag && bars.length && Math.abs(drag.b - drag.a) > 4) {
      const [l, r] = [Math.min(drag.a, drag.b), Math.max(drag.a, drag.b)];
      const first = bars[at(l)];
      const next = bars[at(r) + 1];
      if (first) onRange(first.start, next ? next.start : new Date(toMs).toISOString());
    }
    setDrag(null);
  };
  return (
    <Box>
      <svg ref={ref} opacity={stale ? 0.4 : 1} viewBox={`0 0 ${W} ${H}`} width="100%" height={H} preserveAspectRatio="none" data-testid="histogram" role="img" aria-label={`Events per ${interval} over the chosen dates; drag across to narrow them`} style={{ cursor: "crosshair", userSelect: "none" }}
        onMouseDown={(e) => setDrag({ a: x(e), b: x(e) })} onMouseMove={(e) => drag && setDrag({ ...drag, b: x(e) })} onMouseUp={finish} onMouseLeave={() => setDrag(null)}>
        {spans.map(({ b, x: bx, w }) => {
          const h = (b.count / max) * (H - 2);
          return (
            <rect key={b.start} x={bx + 0.5} y={H - h} width={Math.max(w - 1, 0.5)} height={h} fill="var(--mantine-color-blue-5)" data-start={b.start}>
              <title>{`${formatTime(b.start, zone)}: ${b.count.toLocaleString("en-US")} ${b.count === 1 ? "event" : "events"}`}</title>
            </rect>
          );
        })}
        {drag && <rect x={Math.min(drag.a, drag.b)} y={0} width={Math.abs(drag.b - drag.a)} height={H} fill="var(--mantine-color-blue-2)" opacity={0.4} />}
      </svg>
      {/* Always there, empty until the bars come: nothing below moves. */}
      <Group justify="space-between" gap="xs" wrap="nowrap" data-testid={bars.length ? "histogram-axis" : undefined} mih={18}>
        <Text size="xs" c="dimmed">{bars.length ? axisTime(bars[0]!.start, zone, days) : ""}</Text>
        <Text size="xs" c="dimmed" visibleFrom="sm">{bars.length ? axisTime(bars[Math.floor(bars.length / 2)]!.start, zone, days) : ""}</Text>
        <Text size="xs" c="dimmed">{bars.length ? axisTime(new Date(toMs).toISOString(), zone, days) : ""}</Text>
      </Group>
      {!compact && <Text size="xs" c="dimmed" data-testid="histogram-caption">
        {bars.length ? `${bars.length} bars of ${interval}, highest ${max.toLocaleString("en-US")} · drag to narrow` : `Events per ${interval}`}
      </Text>}
    </Box>
  );
}
