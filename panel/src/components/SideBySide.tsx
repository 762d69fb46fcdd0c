import { Button, Table, Text } from "@mantine/core";
import { useState } from "react";
import { show, sideBySide } from "../state";
import { FieldName } from "./FieldName";

/** SideBySide shows two states field by field: changed lines
 * highlighted, unchanged context collapsed until asked for. */
export function SideBySide({ left, right, leftLabel, rightLabel }: { left: unknown; right: unknown; leftLabel: string; rightLabel: string }) {
  const [all, setAll] = useState(false);
  const rows = sideBySide(left, right);
  const unchanged = rows.filter((r) => !r.changed).length;
  const shown = all ? rows : rows.filter((r) => r.changed);
  return (
    <>
      <Table withTableBorder layout="fixed" className="al-wrap" data-testid="side-by-side">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="28%">Field</Table.Th>
            <Table.Th>{leftLabel}</Table.Th>
            <Table.Th>{rightLabel}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {shown.map((r) => (
            <Table.Tr key={r.path} bg={r.changed ? "var(--mantine-color-yellow-0)" : undefined} data-changed={r.changed || undefined}>
              <Table.Td ff="monospace"><FieldName name={r.path} /></Table.Td>
              <Table.Td ff="monospace" c={r.changed ? "red.9" : undefined}>{show(r.left, r.leftHas)}</Table.Td>
              <Table.Td ff="monospace" c={r.changed ? "teal.9" : undefined}>{show(r.right, r.rightHas)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {unchanged > 0 && (
        <Button variant="subtle" size="xs" onClick={() => setAll(!all)}>
          {all ? "Hide unchanged fields" : `Show ${unchanged} unchanged field${unchanged === 1 ? "" : "s"}`}
        </Button>
      )}
      {rows.length === 0 && <Text c="dimmed" size="sm">Both states are empty.</Text>}
    </>
  );
}
