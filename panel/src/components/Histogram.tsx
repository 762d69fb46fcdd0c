import { Box, Text } from "@mantine/core";
import { useRef, useState } from "react";
import { type Filters } from "../filters";
import { statsRequest } from "../firstView";
import { useAsync } from "../useAsync";

/** Histogram draws the events over time for the filters (GET /stats);
 * dragging across it narrows the date filter to the range dragged. */
export function Histogram({ filters, now, onRange }: { filters: Filters; now: Date; onRange: (from: string, to: string) => void }) {
  const req = statsRequest(filters, now);
  const { interval, toMs } = req;
  const stats = useAsync(req.load, req.key);
  const ref = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ a: number; b: number } | null>(null);
  const bars = stats.data?.histogram ?? [];
  if (stats.error) return null; // the table shows the error
  const max = Math.max(1, ...bars.map((b) => b.count));
  const W = 1000;
  const H = 80;
  const bw = bars.length ? W / bars.length : W;
  const x = (e: React.MouseEvent) => {
    const r = ref.current!.getBoundingClientRect();
    return Math.min(Math.max(((e.clientX - r.left) / r.width) * W, 0), W);
  };
  const finish = () => {
    if (drag && bars.length && Math.abs(drag.b - drag.a) > 4) {
      const [l, r] = [Math.min(drag.a, drag.b), Math.max(drag.a, drag.b)];
      const first = bars[Math.floor(l / bw)];
      const last = bars[Math.min(Math.floor(r / bw), bars.length - 1)];
      const next = bars[Math.min(Math.floor(r / bw), bars.length - 1) + 1];
      if (first && last) onRange(first.start, next ? next.start : new Date(toMs).toISOString());
    }
    setDrag(null);
  };
  return (
    <Box>
      <svg ref={ref} viewBox={`0 0 ${W} ${H}`} width="100%" height={H} preserveAspectRatio="none" data-testid="histogram" role="img" aria-label={`Events per ${interval} over the chosen dates; drag across to narrow them`} style={{ cursor: "crosshair", userSelect: "none" }}
        onMouseDown={(e) => setDrag({ a: x(e), b: x(e) })} onMouseMove={(e) => drag && setDrag({ ...drag, b: x(e) })} onMouseUp={finish} onMouseLeave={() => setDrag(null)}>
        {bars.map((b, i) => {
          const h = (b.count / max) * (H - 2);
          return (
            <rect key={b.start} x={i * bw + 0.5} y={H - h} width={Math.max(bw - 1, 0.5)} height={h} fill="var(--mantine-color-blue-5)">
              <title>{`${b.start}: ${b.count}`}</title>
            </rect>
          );
        })}
        {drag && <rect x={Math.min(drag.a, drag.b)} y={0} width={Math.abs(drag.b - drag.a)} height={H} fill="var(--mantine-color-blue-2)" opacity={0.4} />}
      </svg>
      <Text size="xs" c="dimmed">Events per {interval}{bars.length ? "; drag across the bars to narrow the dates" : ""}</Text>
    </Box>
  );
}
