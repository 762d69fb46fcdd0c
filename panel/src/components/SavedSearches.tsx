import { Anchor, Button, CopyButton, Group, Popover, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { api, ApiError, must, type Problem } from "../api/client";
import { type Filters } from "../filters";
import { navigate } from "../location";
import { savedLink, toSaved } from "../saved";
import { useAsync } from "../useAsync";
import { ErrorState } from "./ErrorState";

/** SavedSearches lists the user's saved searches (each opens its filters,
 * with a link to share), saves the filters on screen under a name, and
 * deletes one. */
export function SavedSearches({ filters }: { filters: Filters }) {
  const [opened, setOpened] = useState(false);
  const [version, setVersion] = useState(0);
  // Asked when opened only: the first view sends nothing for it.
  const list = useAsync(() => (opened ? must(api.GET("/api/saved-searches")) : Promise.resolve(undefined)), `saved ${version} ${opened}`);
  const [name, setName] = useState("");
  const [error, setError] = useState<unknown>();
  const items = list.data?.data ?? [];
  const change = async (p: Promise<unknown>) => {
    setError(undefined);
    try {
      await p;
      setName("");
      setVersion((v) => v + 1);
    } catch (e) {
      setError(e);
    }
  };
  const save = () => change(must(api.POST("/api/saved-searches", { body: toSaved(name.trim(), filters) })));
  const remove = (id: string) => change(api.DELETE("/api/saved-searches/{id}", { params: { path: { id } } }).then((r) => {
    if (!r.response.ok) throw new ApiError(r.response.status, r.error as Problem | undefined);
  }));
  const abs = (q: string) => `${location.origin}${location.pathname}${q}`;
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={360} trapFocus withinPortal>
      <Popover.Target>
        <Button variant="default" onClick={() => setOpened((o) => !o)} data-testid="saved-searches">Saved searches</Button>
      </Popover.Target>
      <Popover.Dropdown data-testid="saved-list">
        <Stack gap="xs">
          {items.length === 0 && !list.loading && <Text size="sm" c="dimmed">No saved search yet: set the filters, name them below.</Text>}
          {items.map((s) => (
            <Group key={s.id} gap={4} wrap="nowrap" justify="space-between" data-testid="saved-item">
              <Anchor href={savedLink(s)} size="sm" style={{ overflowWrap: "anywhere" }}
                onClick={(e) => { e.preventDefault(); setOpened(false); navigate(savedLink(s)); }}>{s.name}</Anchor>
              <Group gap={2} wrap="nowrap">
                <CopyButton value={abs(savedLink(s))}>
                  {({ copied, copy }) => <Button size="compact-xs" variant="subtle" onClick={copy} aria-label={`Copy the link of ${s.name}`}>{copied ? "Copied" : "Link"}</Button>}
                </CopyButton>
                <Button size="compact-xs" variant="subtle" color="red" onClick={() => void remove(s.id)} aria-label={`Delete ${s.name}`}>Delete</Button>
              </Group>
            </Group>
          ))}
          <form onSubmit={(e) => { e.preventDefault(); void save(); }}>
            <Group gap="xs" align="end" wrap="nowrap">
              <TextInput label="Save the filters on screen as" placeholder="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} style={{ flex: 1 }} maxLength={80} />
              <Button type="submit" disabled={!name.trim()}>Save</Button>
            </Group>
          </form>
          {(error !== undefined || list.error !== undefined) && <ErrorState error={error ?? list.error} />}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
