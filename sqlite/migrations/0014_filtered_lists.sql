-- Filtered lists at index speed (issue 45). Every read of the service has
-- a time range (the plan's retention cut-off at least), and every page is
-- sorted by time or by a column, then id:
-- - the equality indexes end in (ts, id): a filter on the action, the
--   resource kind, the actor or the resource walks its events newest
--   first and stops at the page, where (…, id) or (…, ts) made the planner
--   walk the whole tenant in time order and read each row to test it;
-- - the e-mail index keeps its (e-mail, id) order, the sort by user, and
--   holds ts too, so that the time range is tested in the index;
-- - the rare filters of the panel have partial indexes, which cost an
--   insert only for the events they hold: operator accesses
--   (cross_tenant, 0.5% of the demo's events) and outcomes other than
--   success (3%). A query states a partial index's condition in its WHERE
--   as written here, so that the planner may use it (where, sqlite/query.go).
DROP INDEX events_by_action;
CREATE INDEX events_by_action   ON events (tenant_id, action, ts, id);
DROP INDEX events_by_rtype;
CREATE INDEX events_by_rtype    ON events (tenant_id, resource_type, ts, id);
DROP INDEX events_by_actor;
CREATE INDEX events_by_actor    ON events (tenant_id, actor_id, ts, id);
DROP INDEX events_by_resource;
CREATE INDEX events_by_resource ON events (tenant_id, resource_id, ts, id);
DROP INDEX events_by_email;
CREATE INDEX events_by_email    ON events (tenant_id, actor_email_lc, id, ts);
CREATE INDEX events_cross_tenant ON events (tenant_id, ts, id) WHERE cross_tenant = 1;
CREATE INDEX events_by_outcome  ON events (tenant_id, outcome, ts, id) WHERE outcome <> 'success';
