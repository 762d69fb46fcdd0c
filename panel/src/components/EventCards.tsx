import type { AuditEvent } from "../api/client";
import { firstChange } from "../phone";
import { browserZone, formatTime } from "../time";

/** Card is one event at phone width: when, whether it failed, what was
 * done to which resource, by whom, and why (the first change, the
 * operator's declared reason). Plain elements, as the table's rows. The
 * whole card is one target that opens the event: a finger tapping the
 * middle of a card hit the resource or user links the table's rows
 * have, so on a phone filtering from an event is the drawer's pivots
 * (By this actor, On this resource). */
export function Card({ e, zone, onOpen, tabStop }: {
  e: AuditEvent; zone: string; onOpen: (id: string) => void; tabStop: boolean;
}) {
  const change = firstChange(e);
  const failed = e.outcome === "failure";
  return (
    <li className="al-card" data-testid="event-row" data-id={e.id} tabIndex={tabStop ? 0 : -1} aria-label={`Open the ${e.action} of ${e.resource.type} by ${e.actor.email}`}
      onClick={() => onOpen(e.id)} onKeyDown={(ev) => { if (ev.key === "Enter" && ev.target === ev.currentTarget) onOpen(e.id); }}>
      <div className="al-card-line">
        <span data-testid="card-time" title={formatTime(e.timestamp, zone === "UTC" ? browserZone() : "UTC")}>{formatTime(e.timestamp, zone)}</span>
        <span data-testid="card-outcome" className={`al-outcome al-outcome-${failed ? "failure" : "success"}`}>{e.outcome ?? "success"}</span>
      </div>
      <div className="al-card-line al-card-start">
        <span className="al-badge">{e.action}</span>
        <span>{e.resource.type}</span>
        <span className="al-id" title={e.resource.id}><code>{e.resource.id.slice(0, 8)}</code></span>
      </div>
      <div className="al-card-line al-card-start">
        <span className="al-card-who">{e.actor.email}</span>
        {e.crossTenant && <span className="al-badge al-badge-operator" data-testid="cross-tenant">operator team</span>}
      </div>
      {change && (
        <div className="al-card-why al-diff" data-testid="card-change">
          {change.text}{change.more > 0 && <span className="al-dimmed"> and {change.more} more</span>}
        </div>
      )}
      {e.reason && <div className="al-card-why" data-testid="card-reason">Reason: {e.reason}</div>}
    </li>
  );
}
