import { Button, Group, Popover, Stack, Text, UnstyledButton } from "@mantine/core";
import { useState } from "react";
import { api, must } from "../api/client";
import { apiQuery, type Filters } from "../filters";
import { useAsync } from "../useAsync";

/** UserCounts answers "who did this, how often" beside a list sorted by
 * user (issue 42: 2,136 sorted rows to page through to count recording
 * listens by user): the filtered events counted by user (GET /stats,
 * groupBy actor.email, the 20 most frequent), each a click away from its
 * own events. */
export function UserCounts({ filters, now, onUser }: { filters: Filters; now: Date; onUser: (email: string) => void }) {
  const [opened, setOpened] = useState(false);
  const query = { ...apiQuery(filters, now), groupBy: "actor.email" };
  const counts = useAsync((signal) => (opened
    ? must(api.GET("/api/audit-logs/stats", { params: { query: query as never }, signal }))
    : Promise.resolve(undefined)), `users ${opened} ${JSON.stringify(query)}`);
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={340} withinPortal>
      <Popover.Target>
        <Button size="xs" variant="default" onClick={() => setOpened((o) => !o)} data-testid="user-counts">Counts by user</Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap={4} data-testid="user-counts-list">
          <Text size="sm" fw={600}>The filtered events by user{counts.data ? ` (${counts.data.total.toLocaleString("en-US")} in all)` : ""}</Text>
          {counts.error ? <Text size="sm">The counts could not be read.</Text> : (counts.data?.groups ?? []).map((g) => (
            <UnstyledButton key={g.key} onClick={() => { setOpened(false); onUser(g.key); }} data-testid="user-count" data-email={g.key} data-count={g.count}>
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Text size="sm" style={{ overflowWrap: "anywhere" }}>{g.key}</Text>
                <Text size="sm" fw={600}>{g.count.toLocaleString("en-US")}</Text>
              </Group>
            </UnstyledButton>
          ))}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
