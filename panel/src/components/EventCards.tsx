import type { AuditEvent } from "../api/client";
import type { Filters } from "../filters";
import { firstChange } from "../phone";
import { browserZone, formatTime } from "../time";

/** Card is one event at phone width: when, whether it failed, what was
 * done to which resource, by whom, and why (the first change, the
 * operator's declared reason). Plain elements, as the table's rows. */
export function Card({ e, zone, filter, onOpen, tabStop }: {
  e: AuditEvent; zone: string; filter: (f: Partial<Filters>) => void; onOpen: (id: string) => void; tabStop: boolean;
}) {
  const on = (f: Partial<Filters>) => (ev: React.MouseEvent) => {
    ev.stopPropagation();
    filter(f);
  };
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
        <button type="button" tabIndex={-1} className="al-link" onClick={on({ resourceType: [e.resource.type] })}>{e.resource.type}</button>
        <button type="button" tabIndex={-1} className="al-link al-id" aria-label={`Filter on resource ${e.resource.id}`} onClick={on({ resourceId: e.resource.id })}>
          <code>{e.resource.id.slice(0, 8)}</code>
        </button>
      </div>
      <div className="al-card-line al-card-start">
        <button type="button" tabIndex={-1} className="al-link al-card-who" onClick={on({ actorEmail: e.actor.email })}>{e.actor.email}</button>
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
