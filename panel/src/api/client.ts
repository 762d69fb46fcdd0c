// The panel's only way to the service: the public JSON API, typed from the
// OpenAPI document the service serves (schema.d.ts is generated from
// api/openapi.json by `npm run gen:api`, so a contract change that the
// panel does not follow breaks its build).
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema";
import { auth } from "../auth";
import { attachmentName } from "../exportsInfo";

export type AuditEvent = components["schemas"]["Event"];
export type HistoryEntry = components["schemas"]["HistoryEntry"];
export type Comparison = components["schemas"]["Comparison"];
export type Restore = components["schemas"]["Restore"];
export type ExportJob = components["schemas"]["ExportJob"];
export type Stats = components["schemas"]["Stats"];
export type Problem = components["schemas"]["Problem"];
export type ListQuery = NonNullable<paths["/api/audit-logs"]["get"]["parameters"]["query"]>;

/** ApiError is a problem+json answer (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(
    public status: number,
    public problem?: Problem,
  ) {
    super(problem?.detail ?? problem?.title ?? (status === 0 ? "the service cannot be reached" : `HTTP ${status}`));
  }
}

const bearer: Middleware = {
  onRequest({ request }) {
    const t = auth.token();
    if (t) request.headers.set("Authorization", `Bearer ${t}`);
    const r = auth.reason();
    if (r && !request.headers.has("X-Access-Reason")) request.headers.set("X-Access-Reason", r);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) auth.expire("The service refused the token (expired or invalid).");
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: "" });
api.use(bearer);

/** must returns an answer's data or throws its ApiError. */
export async function must<T>(p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let r: { data?: T; error?: unknown; response: Response };
  try {
    r = await p;
  } catch {
    throw new ApiError(0);
  }
  if (r.error !== undefined || r.data === undefined) throw new ApiError(r.response.status, r.error as Problem | undefined);
  return r.data;
}

/** download fetches an authenticated file and hands it to the browser,
 * under the name the service gives it (Content-Disposition), else name.
 * The browser has already undone any Content-Encoding: the bytes saved
 * are the plain file, which the service's name describes. */
export async function download(url: string, name: string): Promise<void> {
  const res = await fetch(url, { headers: authHeaders() });
  if (!res.ok) {
    if (res.status === 401) auth.expire("The service refused the token (expired or invalid).");
    throw new ApiError(res.status, (await res.json().catch(() => undefined)) as Problem | undefined);
  }
  saveBlob(await res.blob(), attachmentName(res.headers.get("Content-Disposition")) ?? name);
}

/** saveBlob hands a downloaded file to the browser under name. */
export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** authHeaders are the credentials of a request made without the client
 * (downloads). */
export function authHeaders(): Record<string, string> {
  const h: Record<string, string> = { Authorization: `Bearer ${auth.token() ?? ""}` };
  const r = auth.reason();
  if (r) h["X-Access-Reason"] = r;
  return h;
}
