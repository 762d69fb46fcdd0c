import { Alert, Button, Code, Container, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { useState } from "react";
import { auth } from "../auth";

/** TokenPrompt asks for a bearer token when the host gave none, or when
 * the one in use expired: never a blank table. */
export function TokenPrompt({ expired, problem }: { expired: string | null; problem: string | null }) {
  const [value, setValue] = useState("");
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Title order={2}>Settings · Audit</Title>
        {expired && (
          <Alert color="orange" title="Your session has ended">
            {expired} Sign in again in the application that opened this panel, or paste a new token below.
          </Alert>
        )}
        {problem && <Alert color="red" title="Not a token">{problem}</Alert>}
        <Text>
          This panel shows your tenant's audit log. Embedded in the platform it receives your session from the host application.
          Standalone, paste a bearer token; an operator mints one with
        </Text>
        <Code block>auditlog token --tenant &lt;tenant id&gt; --role admin --email you@example.com</Code>
        <Textarea label="Bearer token" autosize minRows={3} value={value} onChange={(e) => setValue(e.currentTarget.value)} />
        <Button onClick={() => auth.set(value.trim())} disabled={!value.trim()}>
          Open the audit log
        </Button>
      </Stack>
    </Container>
  );
}

/** ReasonPrompt asks an operator-team member (superadmin) for the reason
 * of this access before anything is read: the tenant sees it beside every
 * read in its own log (spec §4.3). */
export function ReasonPrompt() {
  const [value, setValue] = useState("");
  const tenant = auth.state().claims?.tenant ?? "the tenant named by your token";
  return (
    <Container size="sm" py="xl">
      <form onSubmit={(e) => { e.preventDefault(); if (value.trim()) auth.setReason(value.trim()); }}>
        <Stack>
          <Title order={2}>Operator-team access</Title>
          <Text>
            You are reading the audit log of tenant <Code data-testid="reason-tenant">{tenant}</Code>. Every read is recorded in that tenant's own log with the reason
            you declare here.
          </Text>
          <TextInput label="Declared reason" placeholder="ticket or incident reference" value={value} onChange={(e) => setValue(e.currentTarget.value)} data-testid="access-reason" autoFocus />
          <Button type="submit" disabled={!value.trim()}>Continue</Button>
        </Stack>
      </form>
    </Container>
  );
}
