import { Button, Drawer, Select, Stack, Switch } from "@mantine/core";
import type { ReactNode } from "react";
import type { Filters } from "../filters";
import { sortChoices, sortFilters, sortValue } from "../phone";

/** FilterSheet holds, on a phone, what the wide screen shows around the
 * list: the order (the table's headers there), the filters, following
 * and saved searches, in a sheet from the bottom that leaves the first
 * screen to the events. A change applies at once; the button under them
 * says how many events the filters find and closes the sheet. */
export function FilterSheet({ opened, onClose, filters, onChange, follow, onFollow, canFollow, total, children }: {
  opened: boolean; onClose: () => void; filters: Filters; onChange: (f: Filters) => void;
  follow: boolean; onFollow: (on: boolean) => void; canFollow: boolean; total: string; children: ReactNode;
}) {
  const sort = (v: string | null) => v && onChange(sortFilters(filters, v));
  return (
    <Drawer opened={opened} onClose={onClose} position="bottom" size="88%" title="Filters" data-testid="filter-sheet"
      closeButtonProps={{ "aria-label": "Close the filters" }}
      styles={{ content: { borderTopLeftRadius: 12, borderTopRightRadius: 12 } }}>
      <Stack gap="sm">
        <Select label="Order" data={sortChoices} value={sortValue(filters)} onChange={sort} allowDeselect={false} data-testid="sort" />
        {children}
        <Switch label="Follow new events" checked={follow} onChange={(e) => onFollow(e.currentTarget.checked)} disabled={!canFollow} data-testid="follow" />
        <Button onClick={onClose} data-testid="sheet-done">Show {total}</Button>
      </Stack>
    </Drawer>
  );
}
