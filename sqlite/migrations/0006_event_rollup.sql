-- Hourly counts per tenant and per combination of the dimensions the
-- stats endpoint filters and groups on (everything but the actor, the
-- resource id and free text), kept exact in the same transaction as
-- every insert and delete of events: writeBatch adds each batch's counts
-- (sqlite/rollup.go; a trigger per row cost 40% of the ingest rate) and
-- Purge subtracts what it deletes. EventStats
-- reads whole hours from here and only the partial hours at a window's
-- edges from the events: at 1M events over 30 days the table holds about
-- 21k rows (BENCHMARKS.md).
CREATE TABLE event_rollup (
	tenant_id     TEXT    NOT NULL,
	hour          INTEGER NOT NULL, -- epoch milliseconds, a multiple of 3,600,000
	action        TEXT    NOT NULL,
	resource_type TEXT    NOT NULL,
	category      TEXT    NOT NULL,
	outcome       TEXT    NOT NULL,
	cross_tenant  INTEGER NOT NULL,
	n             INTEGER NOT NULL,
	PRIMARY KEY (tenant_id, hour, action, resource_type, category, outcome, cross_tenant)
) STRICT, WITHOUT ROWID;

INSERT INTO event_rollup
	SELECT tenant_id, ts / 3600000 * 3600000, action, resource_type, category, outcome, cross_tenant, count(*)
	FROM events GROUP BY 1, 2, 3, 4, 5, 6, 7;

-- Hourly counts per actor e-mail, for stats filtered or grouped on it
-- with no other filter (an incident responder's "what did this user
-- do"): keyed by the e-mail first, so one actor's hours are one range.
-- Without the other dimensions a batch adds a few rows, not one per
-- event: with them it cost 13% of the ingest rate.
CREATE TABLE event_rollup_actor (
	tenant_id      TEXT    NOT NULL,
	actor_email_lc TEXT    NOT NULL,
	hour           INTEGER NOT NULL,
	n              INTEGER NOT NULL,
	PRIMARY KEY (tenant_id, actor_email_lc, hour)
) STRICT, WITHOUT ROWID;

INSERT INTO event_rollup_actor
	SELECT tenant_id, actor_email_lc, ts / 3600000 * 3600000, count(*) FROM events GROUP BY 1, 2, 3;
