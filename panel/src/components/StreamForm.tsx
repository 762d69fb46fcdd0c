import { Alert, Button, Code, CopyButton, Group, PasswordInput, SegmentedControl, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { api, ApiError, must } from "../api/client";
import { configOf, emptyForm, fieldErrors, formatLabel, kindLabel, type Format, type Kind, type StreamForm as Form } from "../streams";
import { ErrorState } from "./ErrorState";

const urlLabel: Record<Kind, string> = {
  webhook: "Endpoint URL", splunk_hec: "Collector URL", datadog: "Logs intake URL", sentinel: "Data collection endpoint", s3: "",
};
const urlExample: Record<Kind, string> = {
  webhook: "https://siem.example.com/hooks/audit", splunk_hec: "https://splunk.example.com:8088/services/collector/event",
  datadog: "https://http-intake.logs.datadoghq.com/api/v2/logs", sentinel: "https://audit-dce.westeurope-1.ingest.monitor.azure.com", s3: "",
};

/** StreamForm creates a stream: a destination of each kind with only its
 * fields, a filter in the search language, who is told when it fails.
 * The API's refusals show under the fields they name; a webhook secret
 * the service made is shown once, to give to the receiver. */
export function StreamForm({ onCreated }: { onCreated: () => void }) {
  const [f, setF] = useState<Form>(emptyForm());
  const [errs, setErrs] = useState<ReturnType<typeof fieldErrors>>({});
  const [error, setError] = useState<unknown>();
  const [made, setMade] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof Form) => (e: { currentTarget: { value: string } }) => setF({ ...f, [k]: e.currentTarget.value });
  const create = async () => {
    setBusy(true);
    setErrs({});
    setError(undefined);
    try {
      const s = await must(api.POST("/api/streams", { body: configOf(f) }));
      setMade(f.kind === "webhook" && !f.secret ? (s.destination.secret ?? null) : null);
      setF(emptyForm());
      onCreated();
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) setErrs(fieldErrors(e.problem?.errors));
      else setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap="xs" data-testid="stream-form" maw={640}>
      <TextInput label="Name" value={f.name} onChange={set("name")} error={errs.name} required />
      <SegmentedControl aria-label="Destination" value={f.kind} onChange={(v) => setF({ ...f, kind: v as Kind })}
        data={(Object.keys(kindLabel) as Kind[]).map((k) => ({ value: k, label: kindLabel[k] }))} />
      {errs.kind && <Text size="sm" c="red.8">{errs.kind}</Text>}
      {f.kind === "s3" ? (
        <Group grow>
          <TextInput label="Bucket" value={f.bucket} onChange={set("bucket")} error={errs.bucket} required />
          <TextInput label="Key prefix" placeholder="auditlog-streams" value={f.prefix} onChange={set("prefix")} error={errs.prefix} />
        </Group>
      ) : (
        <TextInput label={urlLabel[f.kind]} required value={f.url} onChange={set("url")} error={errs.url} placeholder={urlExample[f.kind]} />
      )}
      {f.kind === "splunk_hec" && (
        <Group grow>
          <PasswordInput label="HEC token" required value={f.token} onChange={set("token")} error={errs.token} />
          <TextInput label="Index" placeholder="the token's default" value={f.index} onChange={set("index")} error={errs.index} />
        </Group>
      )}
      {f.kind === "datadog" && (
        <PasswordInput label="API key" description="Organization settings → API keys (32 hexadecimal digits)" required value={f.token} onChange={set("token")} error={errs.token} />
      )}
      {f.kind === "sentinel" && (
        <>
          <Group grow>
            <TextInput label="Data collection rule" description="Its immutable id" placeholder="dcr-…" required value={f.dcr} onChange={set("dcr")} error={errs.dcr} />
            <TextInput label="Stream" placeholder="Custom-AuditLog" required value={f.streamName} onChange={set("streamName")} error={errs.streamName} />
          </Group>
          <Group grow>
            <TextInput label="Entra ID tenant id" required value={f.azureTenant} onChange={set("azureTenant")} error={errs.azureTenant} />
            <TextInput label="Application (client) id" required value={f.clientId} onChange={set("clientId")} error={errs.clientId} />
          </Group>
          <PasswordInput label="Client secret" required value={f.secret} onChange={set("secret")} error={errs.secret} />
        </>
      )}
      {f.kind === "webhook" && (
        <PasswordInput label="Signing secret" description="32 to 256 bytes; empty: the service makes one and shows it once" value={f.secret} onChange={set("secret")} error={errs.secret} />
      )}
      <Stack gap={4}>
        <Text size="sm" fw={500}>Format</Text>
        <SegmentedControl aria-label="Format" value={f.format} onChange={(v) => setF({ ...f, format: v as Format })}
          data={(Object.keys(formatLabel) as Format[]).map((k) => ({ value: k, label: formatLabel[k] }))} />
        {errs.format && <Text size="sm" c="red.8">{errs.format}</Text>}
      </Stack>
      <TextInput label="Filter" description="The search language, for example -action:access; empty: every event" value={f.filter} onChange={set("filter")} error={errs.filter} />
      <TextInput label="Alert e-mails" description="Told when the stream has failed for an hour, and when it recovers; empty: yours" value={f.notify} onChange={set("notify")} error={errs.notify} />
      {errs.other && <Text size="sm" c="red.8">{errs.other}</Text>}
      {error !== undefined && <ErrorState error={error} />}
      <Group>
        <Button onClick={() => void create()} loading={busy} data-testid="stream-create">Create the stream (recorded in the log)</Button>
      </Group>
      {made && (
        <Alert color="blue" title="The webhook's signing secret, shown this once" data-testid="stream-secret">
          <Group gap="xs" wrap="nowrap">
            <Code style={{ overflowWrap: "anywhere" }}>{made}</Code>
            <CopyButton value={made}>{({ copied, copy }) => <Button size="compact-xs" variant="light" onClick={copy}>{copied ? "Copied" : "Copy"}</Button>}</CopyButton>
          </Group>
        </Alert>
      )}
    </Stack>
  );
}
