import { Alert, Button, Group, Text } from "@mantine/core";
import { ApiError } from "../api/client";

/** ErrorState says what went wrong and what to do. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const e = error instanceof ApiError ? error : new ApiError(0);
  let title = "Something went wrong";
  let hint = "Retry; if it keeps failing, give the request id to your administrator.";
  if (e.status === 0 || e.status === 503) {
    title = "The audit log service is unavailable";
    hint = "It may be restarting or overloaded. Retry in a moment.";
  } else if (e.status === 429) {
    title = "Too many requests";
    hint = "Your tenant's rate limit was reached. Retry in a few seconds.";
  } else if (e.status === 400) {
    title = "The filters are not valid";
    hint = (e.problem?.errors ?? []).map((f) => `${f.field}: ${f.message}`).join("; ") || "Check the filters.";
  } else if (e.status === 403) {
    title = "Not allowed";
    hint = "Your role cannot do this.";
  } else if (e.status === 404) {
    title = "Not found";
    hint = "It does not exist in your tenant, or it is past your plan's retention.";
  }
  return (
    <Alert color={e.status >= 500 || e.status === 0 ? "red" : "orange"} title={title} data-testid="error-state">
      <Text size="sm">{e.message}</Text>
      <Text size="sm" c="dimmed">{hint}{e.problem?.requestId ? ` (request ${e.problem.requestId})` : ""}</Text>
      {retry && e.status !== 400 && ( // the same request would be refused again
        <Group mt="sm">
          <Button size="xs" variant="light" onClick={retry}>Retry</Button>
        </Group>
      )}
    </Alert>
  );
}
