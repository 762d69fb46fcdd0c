// The panel's browser tests: Playwright (playwright-core) drives Debian's
// Chromium against a real `auditlog serve` that cmd/auditlog's
// TestPanelInTheBrowser starts (demo data, a recording policy with three
// versions, an embedding host page). Every check prints "ok <name> (<seconds> s)"; the
// first failure prints why and exits 1.
import { chromium } from "playwright-core";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";

import { readFileSync } from "node:fs";

// Evaluated through the DevTools protocol: the panel's CSP (script-src
// 'self') rightly refuses an injected <script>.
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe runs axe-core on the page and fails on any serious or critical
 * violation and on any contrast axe could not decide ("incomplete": a
 * text the colour of its background was filed so). One kind of undecided
 * contrast is measured instead of taken as a failure: text axe says
 * another element partially covers (in a dialog over the drawer, axe's
 * own stacking model sees the drawer's controls there); contrast measures
 * those elements itself, as it measures every badge and status text. */
async function axe(page, view) {
  // A dialog still sliding in overlaps what it covers: measured then, its
  // text's background cannot be told. Measure what the user reads.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"), null, { timeout: T });
  await page.evaluate(axeSource);
  const { found, covered } = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations", "incomplete"] });
    const overlap = (n) => ["bgOverlap", "elmPartiallyObscured", "elmPartiallyObscuring"].includes(n.any?.[0]?.data?.messageKey);
    const serious = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    const undecided = r.incomplete.filter((v) => v.id === "color-contrast");
    const nodes = (v) => v.nodes.filter((n) => v.id !== "color-contrast" || !r.incomplete.includes(v) || !overlap(n));
    return {
      found: [...serious, ...undecided].filter((v) => nodes(v).length)
        .map((v) => `${v.id} (${v.impact}): ${nodes(v).slice(0, 3).map((n) => `${n.target.join(" ")} ${n.any?.[0]?.message ?? ""}`).join(", ")}`),
      covered: undecided.flatMap((v) => v.nodes.filter(overlap).map((n) => n.target.join(" "))),
    };
  });
  if (found.length) throw new Error(`accessibility of ${view}:\n  ${found.join("\n  ")}`);
  await contrast(page, view, covered);
}

/** contrast measures, in the page, the contrast ratio (WCAG 2) of every
 * badge and status text, and of the elements of also (CSS selectors),
 * against the background it is drawn on (the nearest ancestor's opaque
 * colour, translucent ones blended over it), and fails below 4.5:1. It
 * returns how many it measured. */
async function contrast(page, view, also = []) {
  const low = await page.evaluate((also) => {
    const rgba = (c) => (c.match(/[\d.]+/g) ?? []).map(Number).concat(1).slice(0, 4);
    const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3])).concat(1);
    const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
    const background = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      return layers.reduceRight((under, top) => over(top, under), [255, 255, 255, 1]);
    };
    const sel = ['.mantine-Badge-root, [data-testid="error-state"] p, [data-testid="restore-status"] p, [data-testid="search-error"], [data-testid="total"], [data-testid="log-proof"] p, .mantine-Alert-title, .mantine-InputWrapper-error', ...also].join(", ");
    const out = [];
    for (const el of document.querySelectorAll(sel)) {
      if (!el.textContent.trim() || !el.getClientRects().length) continue;
      const textEl = el.querySelector(".mantine-Badge-label") ?? el;
      const st = getComputedStyle(textEl);
      const bg = background(el);
      const fg = over(rgba(st.color), bg);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      out.push({ text: el.textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100, fg: st.color, bg: `rgb(${bg.slice(0, 3).map(Math.round)})` });
    }
    return out;
  }, also);
  const bad = low.filter((x) => x.ratio < 4.5);
  if (bad.length) throw new Error(`contrast below 4.5:1 in ${view}:\n  ${bad.map((x) => `"${x.text}" ${x.ratio}:1 (${x.fg} on ${x.bg})`).join("\n  ")}`);
  return low.length;
}

/** readingOrder tabs through the open dialog or sheet (within, a CSS
 * selector) until the focus comes back round, and fails where it goes up
 * the screen, or leftwards along a row: the tab order must follow what
 * the eye reads. Positions are taken in the scrolled content, so a sheet
 * that scrolls as the focus moves down does not count as moving up. It
 * returns how many stops it visited. */
async function readingOrder(page, within, view) {
  const found = [];
  for (let i = 0; i < 60; i++) {
    if (i > 0) await page.keyboard.press("Tab");
    const at = await page.evaluate((within) => {
      const a = document.activeElement;
      const box = a?.closest(within);
      if (!box || a.dataset.tabSeen) return null;
      a.dataset.tabSeen = "1";
      // A sticky header does not scroll with the content.
      let sc = a.parentElement, sticky = false;
      while (sc && sc !== box.parentElement && !(/(auto|scroll)/.test(getComputedStyle(sc).overflowY) && sc.scrollHeight > sc.clientHeight + 1)) {
        sticky ||= getComputedStyle(sc).position === "sticky";
        sc = sc.parentElement;
      }
      const scrolls = sc && sc !== box.parentElement;
      const off = scrolls ? (sticky ? 0 : sc.scrollTop) - sc.getBoundingClientRect().top : 0;
      // A visually hidden input (a segmented control's radio) is where its
      // label is drawn.
      let r = a.getBoundingClientRect();
      if (r.width * r.height < 4 && a.labels?.[0]) r = a.labels[0].getBoundingClientRect();
      const what = a.getAttribute("aria-label") || a.labels?.[0]?.textContent.trim() || a.textContent.trim().slice(0, 30) || a.getAttribute("placeholder") || a.tagName;
      return { top: r.top + off, bottom: r.bottom + off, left: r.left, what };
    }, within);
    if (!at && i > 0) break;
    if (at) found.push(at);
  }
  await page.evaluate(() => document.querySelectorAll("[data-tab-seen]").forEach((e) => delete e.dataset.tabSeen));
  // The focus stays in the dialog: the stops are a cycle, read from its
  // first stop on the screen.
  const first = found.reduce((m, x, i) => (x.top < found[m].top - 2 || (Math.abs(x.top - found[m].top) <= 2 && x.left < found[m].left) ? i : m), 0);
  const stops = [...found.slice(first), ...found.slice(0, first)];
  const back = [];
  for (let i = 1; i < stops.length; i++) {
    const [a, b] = [stops[i - 1], stops[i]];
    const sameRow = Math.abs(b.top - a.top) < 8 || (b.top < a.bottom && b.bottom > a.top);
    if (sameRow ? b.left < a.left - 2 : b.top < a.top) back.push(`"${a.what}" then "${b.what}"`);
  }
  if (back.length) throw new Error(`in ${view} the tab order goes back against the reading order: ${back.join("; ")} (stops: ${stops.map((x) => `${x.what}@${Math.round(x.top)},${Math.round(x.left)}`).join(" ")})`);
  return stops.length;
}

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const BASE = env("PANEL_BASE");
const ADMIN = env("PANEL_ADMIN_TOKEN");
const SUPER = env("PANEL_SUPER_TOKEN");
const HOLD = env("PANEL_HOLD_TOKEN");
const EXPIRED = env("PANEL_EXPIRED_TOKEN");
const INGEST = env("PANEL_INGEST_TOKEN");
const HOST = env("PANEL_HOST_URL");
const TENANT = env("PANEL_TENANT");
const POLICY = env("PANEL_POLICY_ID");
const [V1, V2, V3] = env("PANEL_POLICY_VERSIONS").split(",");
const PANEL = `${BASE}/settings/audit/`;
const T = 20_000;

/** ingest posts one event of the test's policy (or any) to the service. */
async function ingest(event) {
  const res = await fetch(`${BASE}/api/audit-events`, {
    method: "POST",
    headers: { Authorization: `Bearer ${INGEST}`, "Content-Type": "application/json" },
    body: JSON.stringify([event]),
  });
  const body = await res.json();
  if (res.status !== 200 || body.accepted !== 1) throw new Error(`ingest: ${res.status} ${JSON.stringify(body)}`);
}

function policyEvent(before, after) {
  return {
    id: `evt_audit_${randomUUID()}`, timestamp: new Date().toISOString(), tenantId: TENANT,
    actor: { id: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", email: "policy-owner@x.example", role: "admin" },
    action: "update", resource: { type: "recording_policy", id: POLICY }, before, after,
  };
}

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

check("standalone without a token, a prompt explains auditlog token", async ({ page }) => {
  await page.goto(PANEL);
  await page.getByText("auditlog token --tenant").waitFor({ timeout: T });
});

check("a #token= link followed in a tab that has the panel signs in and leaves the URL", async ({ page }) => {
  await page.goto(`${PANEL}?range=all`);
  await page.getByText("auditlog token --tenant").waitFor({ timeout: T });
  await page.evaluate((t) => { location.hash = `token=${t}`; }, ADMIN);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  await page.waitForFunction(() => !location.href.includes("token="), null, { timeout: T });
  const kept = await page.evaluate(() => sessionStorage.getItem("auditlog.token"));
  if (kept !== ADMIN) throw new Error("the token was not kept");
});

check("a first load asks for nothing missing (the favicon is inline)", async ({ page }) => {
  const missing = [];
  page.on("response", (r) => { if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`); });
  await page.goto(`${PANEL}?range=all#token=${ADMIN}`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  await page.waitForTimeout(500);
  const icon = await page.evaluate(() => document.querySelector("link[rel=icon]")?.getAttribute("href") ?? "");
  if (!icon.startsWith("data:image/svg+xml")) throw new Error(`no inline icon: ${icon}`);
  if (missing.length) throw new Error(`missing: ${missing.join(", ")}`);
});

check("a token in the fragment signs in, is kept in the session, and leaves the URL", async ({ page }) => {
  await page.goto(`${PANEL}?range=all#token=${ADMIN}`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  if (page.url().includes("token=")) throw new Error(`the token stayed in the URL: ${page.url()}`);
  const kept = await page.evaluate(() => [sessionStorage.getItem("auditlog.token"), localStorage.length]);
  if (kept[0] !== ADMIN || kept[1] !== 0) throw new Error(`storage: ${kept}`);
});

/** apiTotal asks the API itself how many events a query matches. */
async function apiTotal(query) {
  const res = await fetch(`${BASE}/api/audit-logs?${query}&pageSize=1`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`list: ${res.status} ${JSON.stringify(body)}`);
  return body.total.relation === "eq" ? body.total.value : Infinity; // "gte": more than the count shows
}

check("filters live in the URL: the spec's deleted queues", async ({ page }) => {
  const want = await apiTotal("action=delete&resourceType=queue");
  if (want < 10) throw new Error(`the demo has ${want} deleted queues`);
  await page.goto(`${PANEL}?range=all&action=delete&resourceType=queue`);
  await page.getByTestId("total").getByText(`${want} events`).waitFor({ timeout: T });
});

check("pivots: from an event, one click to the events from its IP, whose URL says so", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&resourceType=session`);
  await page.getByTestId("event-row").first().click();
  const drawer = page.getByTestId("event-drawer");
  await drawer.getByTestId("pivots").waitFor({ timeout: T });
  const ip = (await drawer.getByText(/ from [0-9a-f.:]+/).first().innerText()).match(/ from ([0-9a-f.:]+)/)[1];
  await drawer.getByRole("link", { name: "From this IP" }).click();
  await page.waitForURL((u) => u.searchParams.get("q") === `ip:${ip}`, { timeout: T });
  const want = await apiTotal(`q=${encodeURIComponent(`ip:${ip}`)}`);
  if (!(want >= 1)) throw new Error(`the API finds ${want} events from ${ip}`);
  await page.getByTestId("total").getByText(`${want} events`).waitFor({ timeout: T });
  await page.reload();
  await page.getByTestId("total").getByText(`${want} events`).waitFor({ timeout: T });
});

check("load more pages on with the cursor; no match says what to do", async ({ page }) => {
  await page.goto(`${PANEL}?range=all`);
  await page.getByTestId("event-row").nth(49).waitFor({ timeout: T });
  await page.getByTestId("load-more").click();
  await page.getByTestId("event-row").nth(99).waitFor({ timeout: T });
  const ids = await page.getByTestId("event-row").evaluateAll((rows) => rows.length);
  if (ids !== 100) throw new Error(`${ids} rows after one more page`);
  await page.goto(`${PANEL}?range=all&q=zzzznomatchzzzz`);
  await page.getByTestId("empty-state").waitFor({ timeout: T });
});

check("filtered rows are the API's, and a reload shows the same view", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&action=delete&resourceType=queue&sort=actor.email`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const shown = await page.getByTestId("event-row").evaluateAll((rows) => rows.map((r) => r.dataset.id));
  const res = await fetch(`${BASE}/api/audit-logs?action=delete&resourceType=queue&sort=actor.email&pageSize=50`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  const want = (await res.json()).data.map((e) => e.id);
  if (shown.join() !== want.join()) throw new Error(`rows ${shown.length} differ from the API's ${want.length}`);
  await page.reload();
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const again = await page.getByTestId("event-row").evaluateAll((rows) => rows.map((r) => r.dataset.id));
  if (again.join() !== want.join()) throw new Error("a reload shows other rows");
  for (const v of ["delete", "queue"]) await page.getByTestId("filters").getByText(v, { exact: true }).first().waitFor({ timeout: T });
});

check("a column header sorts, the back button undoes it, a value filters", async ({ page }) => {
  await page.goto(`${PANEL}?range=all`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  await page.getByTestId("sort-actor.email").click();
  await page.waitForURL(/sort=actor.email/, { timeout: T });
  // The rows of the new order, not the previous ones still on screen.
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const emails = await page.getByTestId("event-row").evaluateAll((rows) => rows.slice(0, 5).map((r) => r.children[1].textContent.toLowerCase()));
  if (emails.join() !== [...emails].sort().join()) throw new Error(`not sorted by user: ${emails}`);
  await page.goBack();
  await page.waitForURL((u) => !u.search.includes("sort="), { timeout: T });
  await page.getByTestId("event-row").first().getByRole("button").first().click();
  await page.waitForURL(/actorEmail=/, { timeout: T });
});

/** pickZone chooses an IANA zone in the header's picker. */
async function pickZone(page, zone) {
  const box = page.getByRole("combobox", { name: "Time zone" });
  await box.click();
  await box.fill(zone.split("/").pop());
  await page.getByRole("option", { name: zone, exact: true }).click();
  await page.waitForFunction((z) => localStorage.getItem("auditlog.zone") === z, zone, { timeout: T });
}

check("times show in the chosen IANA zone everywhere, UTC on hover", async ({ page }) => {
  await page.goto(`${PANEL}?range=all`);
  const cell = page.getByTestId("event-row").first().locator("td").first();
  await cell.waitFor({ timeout: T });
  // The context runs in Europe/Paris: UTC+01:00 or +02:00 by default.
  if (!/ UTC\+0[12]:00$/.test(await cell.innerText()) || !(await cell.getAttribute("title")).endsWith(" UTC")) {
    throw new Error(`default zone: ${await cell.innerText()}, hover ${await cell.getAttribute("title")}`);
  }
  await pickZone(page, "Asia/Tokyo");
  await cell.getByText(/ UTC\+09:00$/).waitFor({ timeout: T });
  await pickZone(page, "UTC");
  await cell.getByText(/ UTC$/).waitFor({ timeout: T });
  await pickZone(page, "Europe/Paris");
});

check("a time typed in a chosen zone becomes the right UTC instant", async ({ page }) => {
  await page.goto(`${PANEL}?range=custom`);
  await pickZone(page, "America/Los_Angeles");
  await page.getByLabel("From", { exact: true }).fill("2026-11-11T00:00");
  await page.waitForURL(/from=2026-11-11T08%3A00%3A00.000Z/, { timeout: T });
  await page.getByLabel("To", { exact: true }).fill("2026-07-01T09:30");
  await page.waitForURL(/to=2026-07-01T16%3A30%3A00.000Z/, { timeout: T });
  // Shown back in the zone, as typed.
  if ((await page.getByLabel("From", { exact: true }).inputValue()) !== "2026-11-11T00:00") throw new Error("From is not shown in the zone");
  await pickZone(page, "Europe/Paris");
  if ((await page.getByLabel("From", { exact: true }).inputValue()) !== "2026-11-11T09:00") throw new Error("From does not follow the zone");
});

check("the Resource kind and Action boxes stay one line high with their choices", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&resourceType=recording_policy&action=create,update,delete`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  const h = async (label) => (await page.getByLabel(label, { exact: true }).first().evaluate((el) => el.closest(".mantine-InputWrapper-root").getBoundingClientRect().height));
  const [one, kind, action] = [await h("User e-mail"), await h("Resource kind"), await h("Action")];
  if (Math.abs(kind - one) > 1 || Math.abs(action - one) > 1) throw new Error(`heights: e-mail ${one}, kind ${kind}, action ${action}`);
});

check("the histogram covers the whole window, silence included, with labels", async ({ page }) => {
  // Seven days in 3-hour bars: 56 buckets whatever the data, or 57 when
  // the window starts inside a bucket. The test's policy has events in
  // the last minutes only: every earlier bar is drawn, empty.
  await page.goto(`${PANEL}?range=7d&resourceId=${POLICY}`);
  const bars = page.getByTestId("histogram").locator("rect");
  await page.getByTestId("histogram-axis").waitFor({ timeout: T });
  const n = await bars.count();
  if (n < 56 || n > 57) throw new Error(`${n} bars for 7 days of 3 h`);
  const titles = await bars.evaluateAll((rs) => rs.map((r) => r.querySelector("title").textContent));
  if (!titles.every((t) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC[+-]\d{2}:\d{2}: [\d,]+ events?$/.test(t))) throw new Error(`tooltips: ${titles.slice(0, 3)}`);
  if (!titles.some((t) => t.endsWith(": 0 events"))) throw new Error("no empty bucket is drawn");
  const caption = await page.getByTestId("histogram-caption").innerText();
  if (!/^\d+ bars of 3h, highest [\d,]+ · drag to narrow$/.test(caption)) throw new Error(`caption: ${caption}`);
  // Bars are placed by time: the last bucket, which ends now, is as wide
  // as the part of it that has passed, and ends at the right edge.
  await page.goto(`${PANEL}?range=all`);
  await page.getByTestId("histogram-axis").waitFor({ timeout: T });
  const geo = await page.getByTestId("histogram").locator("rect[data-start]").evaluateAll((rs) => rs.map((r) => ({ x: +r.getAttribute("x"), w: +r.getAttribute("width"), start: r.dataset.start })));
  const [prev, last] = geo.slice(-2);
  const step = Date.parse(last.start) - Date.parse(prev.start);
  const passed = Math.min(1, (Date.now() - Date.parse(last.start)) / step);
  if (last.x + last.w > 1000.5 || Math.abs((last.w + 1) / (prev.w + 1) - passed) > 0.1) {
    throw new Error(`the last bucket of "All": ${JSON.stringify(last)} beside ${JSON.stringify(prev)}; ${Math.round(passed * 100)}% of it has passed`);
  }
});

check("a saved search round-trips: saved, listed after a reload, opened, shared by link, deleted", async ({ page }) => {
  const search = "?range=30d&resourceType=recording_policy&q=actor%3Apolicy-owner*+-action%3Aaccess";
  await page.goto(`${PANEL}${search}`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  await page.getByTestId("saved-searches").click();
  const name = `Policy owner ${Date.now()}`;
  await page.getByLabel("Save the filters on screen as").fill(name);
  await page.getByLabel("Save the filters on screen as").press("Enter");
  const item = page.getByTestId("saved-item").filter({ hasText: name });
  await item.waitFor({ timeout: T });
  await page.goto(`${PANEL}?range=all`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  await page.getByTestId("saved-searches").click();
  if ((await item.getByRole("link").getAttribute("href")) !== search) throw new Error(`link ${await item.getByRole("link").getAttribute("href")}, want ${search}`);
  await axe(page, "the saved searches, open");
  await item.getByRole("link").click();
  await page.waitForURL((u) => u.search === search, { timeout: T });
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const emails = await page.getByTestId("event-row").evaluateAll((rows) => rows.map((r) => r.children[1].textContent));
  if (!emails.length || !emails.every((e) => e.startsWith("policy-owner"))) throw new Error(`rows of the saved search: ${emails.slice(0, 3)}`);
  await page.getByTestId("saved-searches").click();
  // Narrow, the saved searches are in the filter sheet: read as well.
  await page.keyboard.press("Escape");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId("filters-toggle").click();
  await page.getByTestId("filter-sheet").getByTestId("saved-searches").click();
  await item.waitFor({ timeout: T });
  await axe(page, "the saved searches, open, at 390 px");
  await item.getByRole("button", { name: `Delete ${name}` }).click();
  await item.waitFor({ state: "detached", timeout: T });
  await page.keyboard.press("Escape");
  await page.setViewportSize({ width: 1280, height: 720 });
});

check("the search box explains the language; every example it gives finds events of the demo data, and a click runs it", async ({ page }) => {
  await page.goto(`${PANEL}?range=all`);
  await page.locator('[data-testid="filters"]:not([data-skeleton])').waitFor({ timeout: T });
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  await page.getByTestId("search-help").click();
  await page.getByTestId("search-example").first().waitFor({ timeout: T });
  await axe(page, "the search help, open");
  const examples = await page.getByTestId("search-example").allInnerTexts();
  if (examples.length < 9) throw new Error(`only ${examples.length} examples`);
  for (const q of examples) {
    const res = await fetch(`${BASE}/api/audit-logs?pageSize=1&q=${encodeURIComponent(q)}`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    if (res.status !== 200) throw new Error(`the example ${q} answers ${res.status}: ${await res.text()}`);
    const body = await res.json();
    if (!body.total.value) throw new Error(`the example ${q} finds nothing in the demo data`);
  }
  await page.getByTestId("search-example").filter({ hasText: "-action:access" }).click();
  await page.waitForURL(/q=-action%3Aaccess/, { timeout: T });
  // Narrow, the help opens from the search box in the filter sheet.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId("filters-toggle").click();
  await page.getByTestId("filter-sheet").getByTestId("search-help").click();
  await page.getByTestId("search-example").first().waitFor({ timeout: T });
  await axe(page, "the search help, open, at 390 px");
  await page.keyboard.press("Escape");
  await page.setViewportSize({ width: 1280, height: 720 });
});

check("the drawer proves the event's place in the log in the browser, and a tampered proof fails there", async ({ browser }) => {
  const hasLog = (await fetch(`${BASE}/api/log-key`)).status === 200;
  // The seed's 30,000 events are sealed first: under the race detector
  // that takes a while. Wait (at most 3 minutes) until V1 and V2 are in
  // the log, so that the drawer has a proof to check.
  for (let i = 0; hasLog && i < 180; i++) {
    const ready = await Promise.all([V1, V2].map(async (id) => (await fetch(`${BASE}/api/log/proof?event=${id}`, { headers: { Authorization: `Bearer ${ADMIN}` } })).status === 200));
    if (ready.every(Boolean)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const ctx = await browser.newContext({ timezoneId: "Europe/Paris" });
  const page = await ctx.newPage();
  await page.goto(`${PANEL}?range=all&event=${V1}#token=${ADMIN}`);
  await page.getByTestId("event-json").waitFor({ timeout: T });
  if (!hasLog) {
    // A store without a verifiable log (sealing off): nothing shown.
    await page.waitForTimeout(1000);
    if (await page.getByTestId("log-proof").count()) throw new Error("a log proof shown on a store without a log");
    await ctx.close();
    return;
  }
  const proof = page.locator('[data-testid="log-proof"][data-ok="true"]');
  try {
    await proof.getByText("verified in this browser").waitFor({ timeout: T });
  } catch (e) {
    // Say what the drawer showed instead: a failed check names its reason.
    const shown = page.getByTestId("log-proof");
    const what = (await shown.count()) ? `${await shown.first().getAttribute("data-ok")}: ${await shown.first().innerText()}` : "no log proof shown";
    e.message = `${e.message.split("\n")[0]} (the drawer showed ${what})`;
    throw e;
  }
  if (!/In the log at #\d+, checkpoint of .* UTC\+0[12]:00 \(\d+ events\)/.test(await proof.innerText())) throw new Error(`log proof: ${await proof.innerText()}`);
  // It says who vouches for the checkpoint: the witnesses that cosigned
  // it, or, with none configured, that only the service's key does.
  const { witnesses = [] } = await (await fetch(`${BASE}/api/log-key`)).json();
  const vouch = witnesses.length ? /cosigned by / : /No witness is configured: only the service's own key vouches/;
  if (!vouch.test(await proof.innerText())) throw new Error(`log proof with ${witnesses.length} witnesses: ${await proof.innerText()}`);
  // The badge that says so can be read (issue 42: it was a blank pill).
  if (await contrast(page, "the verified proof") < 1) throw new Error("no badge measured beside the verified proof");
  // The browser decides: a proof with one hash changed in transit fails.
  await page.route("**/api/log/proof?*", async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    const h = Buffer.from(body.proof[0] ?? body.checkpoint.split("\n")[2], "base64");
    h[0] ^= 1;
    if (body.proof.length) body.proof[0] = h.toString("base64");
    await route.fulfill({ response: res, json: body });
  });
  await page.goto(`${PANEL}?range=all&event=${V2}`);
  await page.locator('[data-testid="log-proof"][data-ok="false"]').waitFor({ timeout: T });
  await ctx.close();
});

check("with witnesses, an event in no cosigned checkpoint is 'not yet cosigned', never 'verified'; a bad cosignature fails", async ({ browser }) => {
  if ((await fetch(`${BASE}/api/log-key`)).status !== 200) return; // no log on this store
  // The service as it answers while its witness is down: it lists the
  // witness, and no cosigned checkpoint holds the event (404).
  const witness = "witness.example/w1+8cc09bc4+BNTOAlJni3RxrNcODqZCZs81T4+jVli/RR4MH71a9R89";
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.route("**/api/log-key", async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: { ...(await res.json()), witnesses: [witness] } });
  });
  let cosignedAnswer = "missing";
  await page.route("**/api/log/proof?*", async (route) => {
    if (!route.request().url().includes("cosigned=true")) return route.continue();
    if (cosignedAnswer === "missing") return route.fulfill({ status: 404, contentType: "application/problem+json", body: JSON.stringify({ title: "not found", status: 404 }) });
    // A cosigned checkpoint whose witness line is not that witness's.
    const res = await route.fetch({ url: route.request().url().replace("&cosigned=true", "") });
    const body = await res.json();
    body.checkpoint += "— witness.example/w1 jMCbxAAAAABrCBx0GcK6lAvREu39Ibwx7sxL4s/uzYuzQ6JaWl3TafK/MOE7VBH24ocfnNWFY0ugFL5Bc6lzUHI+SVWV5Fiyp9WKCQ==\n";
    await route.fulfill({ response: res, json: body });
  });
  await page.goto(`${PANEL}?range=all&event=${V1}#token=${ADMIN}`);
  const pending = page.locator('[data-testid="log-proof"][data-ok="pending"]');
  await pending.getByText("not yet cosigned").waitFor({ timeout: T });
  await contrast(page, "the proof not yet cosigned");
  await page.waitForTimeout(2500); // asked again meanwhile: still no cosigned checkpoint
  if (await page.getByText("verified in this browser").count()) throw new Error("'verified' shown for an event in no cosigned checkpoint");
  cosignedAnswer = "forged";
  await page.locator('[data-testid="log-proof"][data-ok="false"]').getByText("cosignature does not verify").waitFor({ timeout: T });
  await ctx.close();
});

check("rows preview their changes from → to", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&resourceType=recording_policy&resourceId=${POLICY}`);
  await page.getByTestId("diff-preview").first().getByText("→").first().waitFor({ timeout: T });
});

check("the event's own URL opens its detail: before and after side by side, the versions, a compare", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&event=${V3}`);
  const drawer = page.getByTestId("side-by-side");
  await drawer.waitFor({ timeout: T });
  if ((await drawer.locator("tr[data-changed]").count()) < 1) throw new Error("no changed line highlighted");
  await page.getByTestId("version").nth(2).waitFor({ timeout: T });
  await page.getByLabel(`compare ${V1}`).check();
  await page.getByLabel(`compare ${V3}`).check();
  await page.getByTestId("compare").click();
  await page.getByTestId("comparison").getByText("retentionDays").waitFor({ timeout: T });
  // A version restores from the comparison and from its row: the dialog
  // compares the current state with that version's, as the drawer's own.
  const v1 = await apiGet(`/api/audit-logs/${V1}`);
  for (const from of [page.getByTestId("comparison-restore"), page.getByTestId("version").filter({ has: page.getByLabel(`compare ${V1}`) })]) {
    await from.getByTestId("restore-version").first().click();
    const dialog = page.getByTestId("restore-confirm");
    await dialog.getByText("Restore the resulting version").waitFor({ timeout: T });
    await dialog.getByTestId("side-by-side").getByText("retentionDays").first().waitFor({ timeout: T });
    const restored = await dialog.getByTestId("side-by-side").locator("tr").evaluateAll((rows) => rows.map((r) => r.textContent));
    if (!restored.some((t) => t.includes("retentionDays") && t.endsWith(String(v1.after.retentionDays)))) throw new Error(`the dialog does not restore ${V1}'s state: ${restored.join(" | ")}`);
    await axe(page, "the restore dialog of a version");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached", timeout: T });
    // Escape closed the dialog only: the event is still open.
    if (!new URL(page.url()).searchParams.has("event")) throw new Error("Escape in the restore dialog closed the event too");
    await page.getByTestId("comparison").waitFor({ timeout: T });
  }
});

check("a long field name wraps between its words in the drawer, never inside one, wide and narrow", async ({ browser }) => {
  const long = "inboundQueueOverflowRecordingRetentionPolicyName";
  const ev = { ...policyEvent({ settings: { [long]: "keep-thirty-days" } }, { settings: { [long]: "keep-ninety-days-for-disputes" } }),
    resource: { type: "recording_policy", id: randomUUID() } };
  await ingest(ev);
  for (const [w, h] of [[1280, 720], [390, 844]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h }, timezoneId: "Europe/Paris" });
    const page = await ctx.newPage();
    await page.goto(`${PANEL}?range=all&event=${ev.id}#token=${ADMIN}`);
    await page.getByTestId("side-by-side").getByText("Policy").first().waitFor({ timeout: T });
    // Where each line of a field's name ends: never between two
    // lower-case letters (inside a word).
    const { names, wrapped, bad } = await page.evaluate(() => {
      const out = { names: 0, wrapped: 0, bad: [] };
      for (const el of document.querySelectorAll('[data-testid="event-drawer"] [data-testid="field-name"]')) {
        if (!el.getClientRects().length) continue;
        out.names++;
        let prevTop, prevCh;
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (let i = 0; i < n.length; i++) {
            const r = document.createRange();
            r.setStart(n, i);
            r.setEnd(n, i + 1);
            const rect = r.getClientRects()[0];
            if (!rect) continue;
            if (prevTop !== undefined && rect.top > prevTop + 2) {
              out.wrapped++;
              if (/[a-z]/.test(prevCh) && /[a-z]/.test(n.data[i])) out.bad.push(`${el.textContent}: ${prevCh}|${n.data[i]}`);
            }
            prevTop = rect.top;
            prevCh = n.data[i];
          }
        }
      }
      return out;
    });
    if (!names || !wrapped) throw new Error(`at ${w} px: ${names} field names, ${wrapped} wrapped; the long name should wrap`);
    if (bad.length) throw new Error(`at ${w} px a field name breaks inside a word: ${bad.join("; ")}`);
    await ctx.close();
  }
});

check("a per-field undo asks for confirmation and a reason, shows a pending ask instead of a second, follows the request", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&event=${V3}`);
  const versions = page.getByTestId("version");
  await versions.first().waitFor({ timeout: T });
  const before = await versions.count();
  await page.getByTestId("undo-mode").click();
  await page.getByTestId("restore-confirm").getByText("Current").waitFor({ timeout: T });
  await page.getByTestId("restore-reason").fill("Ticket CS-4821: mode back");
  await page.getByTestId("restore-submit").click();
  const status = page.getByTestId("restore-status");
  await status.getByText("pending").waitFor({ timeout: T });
  const id = /request ([0-9a-f-]{36})/.exec(await status.innerText())?.[1];
  if (!id) throw new Error("no request id shown");
  const asked = await (await fetch(`${BASE}/api/restores/${id}`, { headers: { Authorization: `Bearer ${ADMIN}` } })).json();
  if (asked.reason !== "Ticket CS-4821: mode back") throw new Error(`the request's reason: ${asked.reason}`);
  // Asking again for the same field shows the pending request, no second.
  await page.getByTestId("undo-mode").click();
  await page.getByTestId("restore-pending").getByText(id).waitFor({ timeout: T });
  if (await page.getByTestId("restore-submit").count()) throw new Error("a second request can be made while one is pending");
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  // The owner applies it: the status turns applied, the versions list
  // shows the new version without a reload.
  const applied = policyEvent({ mode: "none", retentionDays: 60 }, { mode: "some", retentionDays: 60 });
  applied.restoredFrom = id;
  await ingest(applied);
  await status.getByText("applied").waitFor({ timeout: T });
  await page.waitForFunction(([n]) => document.querySelectorAll('[data-testid="version"]').length > n, [before], { timeout: T });
});

check("a resource changed since it was looked at gives the 409 case, linked and timed in the zone, then restore anyway", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&event=${V2}`);
  const versions = page.getByTestId("version");
  await versions.first().waitFor({ timeout: T });
  const before = await versions.count();
  await page.getByTestId("restore-before").click();
  await page.getByTestId("restore-confirm").getByText("Current").waitFor({ timeout: T });
  await ingest(policyEvent({ mode: "none", retentionDays: 90 }, { mode: "all", retentionDays: 90 }));
  await page.getByTestId("restore-submit").click();
  const conflict = page.getByTestId("restore-conflict");
  await conflict.waitFor({ timeout: T });
  if (!/ UTC\+0[12]:00/.test(await conflict.innerText())) throw new Error(`the newer version's time is not in the zone: ${await conflict.innerText()}`);
  const newer = await page.getByTestId("restore-newer").getAttribute("href");
  if (!/^\?event=evt_audit_/.test(newer ?? "")) throw new Error(`the newer version's link: ${newer}`);
  await page.waitForFunction(([n]) => document.querySelectorAll('[data-testid="version"]').length > n, [before], { timeout: T });
  // "Current" now shows the newer state (retention 90 days), the one
  // "Restore anyway" replaces, beside the restored 30.
  await page.getByTestId("restore-confirm").getByTestId("side-by-side").getByText("90", { exact: true }).waitFor({ timeout: T });
  await page.getByTestId("restore-force").click();
  await page.getByTestId("restore-status").getByText("pending").waitFor({ timeout: T });
});

check("a superadmin must declare a reason to restore", async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${PANEL}?range=all&event=${V2}#token=${SUPER}`);
  // Before anything is read, the access reason: the prompt names the
  // tenant and takes Enter.
  await page.getByTestId("reason-tenant").getByText(TENANT).waitFor({ timeout: T });
  await page.getByLabel("Declared reason").fill("ticket INC-7");
  await page.getByLabel("Declared reason").press("Enter");
  // The reason stays in view in the header (issue 42).
  await page.getByTestId("declared-reason").getByText("ticket INC-7").waitFor({ timeout: T });
  await page.getByTestId("restore-before").click();
  await page.getByTestId("restore-confirm").getByText("Current").waitFor({ timeout: T });
  const reason = page.getByTestId("restore-reason");
  if ((await reason.inputValue()) !== "ticket INC-7") throw new Error("the access reason is not offered as the restore's");
  await reason.fill("");
  if (!(await page.getByTestId("restore-submit").isDisabled())) throw new Error("submit enabled without a reason");
  await reason.fill("ticket INC-7: undo the policy change");
  await page.getByTestId("restore-submit").click();
  await page.getByTestId("restore-status").waitFor({ timeout: T });
  await ctx.close();
});

check("the drawer: a collapsible JSON tree with a copy button, a copy link without the token", async ({ browser }) => {
  const ctx = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"], timezoneId: "Europe/Paris" });
  const page = await ctx.newPage();
  await page.goto(`${PANEL}?range=all&event=${V2}#token=${ADMIN}`);
  const tree = page.getByTestId("event-json");
  const actor = tree.locator("summary", { hasText: "actor:" });
  await actor.waitFor({ timeout: T });
  const email = tree.getByText('"policy-owner@x.example"');
  await email.waitFor({ timeout: T });
  await actor.click();
  await email.waitFor({ state: "hidden", timeout: T });
  await page.getByTestId("copy-json").click();
  const json = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  if (json.id !== V2) throw new Error(`copied JSON of ${json.id}`);
  await page.getByTestId("copy-link").click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  if (!link.startsWith(PANEL) || !link.includes(`event=${V2}`) || link.includes("token")) throw new Error(`copied link ${link}`);
  await ctx.close();
});

check("Export downloads exactly the filters on screen, CSV or JSON lines, named after them", async ({ page }) => {
  const want = await apiTotal("action=delete&resourceType=queue");
  await page.goto(`${PANEL}?range=all&action=delete&resourceType=queue`);
  await page.getByTestId("total").getByText(`${want} events`).waitFor({ timeout: T });
  const { readFile } = await import("node:fs/promises");
  // The name holds the filters, the default view's system=false (the
  // service's own records left out) included.
  const name = (ext) => new RegExp(`^audit-log_start_\\d{4}-\\d{2}-\\d{2}T\\d{4}Z_action-delete_resourceType-queue_system-false_[0-9a-f]{8}\\.${ext}$`);
  let [dl] = await Promise.all([page.waitForEvent("download", { timeout: T }), page.getByTestId("export").click()]);
  let raw = await readFile(await dl.path());
  if (!name("csv").test(dl.suggestedFilename()) || raw[0] === 0x1f) throw new Error(`${dl.suggestedFilename()} holds ${raw.subarray(0, 20)}`);
  const lines = raw.toString("utf8").trim().split("\r\n");
  if (!lines[0].startsWith("id,timestamp") || lines.length !== want + 1) throw new Error(`the CSV has ${lines.length} lines, want the header and ${want} rows`);
  [dl] = await Promise.all([page.waitForEvent("download", { timeout: T }), page.getByTestId("export-jsonl").click()]);
  raw = await readFile(await dl.path());
  if (!name("jsonl").test(dl.suggestedFilename())) throw new Error(`JSON lines named ${dl.suggestedFilename()}`);
  const events = raw.toString("utf8").trim().split("\n").map((l) => JSON.parse(l));
  if (events.length !== want || !events.every((e) => e.action === "delete" && e.resource.type === "queue")) throw new Error(`${events.length} JSON lines, want ${want} deleted queues`);
  // Both are listed in Exports as direct downloads, with their filters.
  await page.goto(`${PANEL}?view=exports`);
  const direct = page.getByTestId("direct-download").filter({ hasText: "JSON lines" }).first();
  await direct.getByText("Action: delete").waitFor({ timeout: T });
  await direct.getByText("Resource kind: queue").waitFor({ timeout: T });
});

check("above 10,000 events the export is a job: queued, followed in Exports, downloaded when done", async ({ page }) => {
  const want = await apiTotal("");
  if (want <= 10000) throw new Error(`the demo tenant has ${want} events; the test needs more than 10,000`);
  await page.goto(`${PANEL}?range=all`);
  await page.getByTestId("total").getByText("at least 10000 events").waitFor({ timeout: T });
  await page.getByTestId("export").click();
  await page.getByTestId("export-queued").getByText("e-mail").waitFor({ timeout: T });
  await page.getByTestId("export-queued").getByText("Follow it in Exports").click();
  const job = page.getByTestId("export-job").first();
  await job.getByText("done").waitFor({ timeout: 120_000 });
  const [dl] = await Promise.all([page.waitForEvent("download", { timeout: T }), job.getByRole("button", { name: "Download" }).click()]);
  const { readFile } = await import("node:fs/promises");
  const raw = await readFile(await dl.path());
  // The name says CSV: the bytes are CSV, not the gzip they travelled in.
  if (!/^audit-log_start_.*\.csv$/.test(dl.suggestedFilename()) || raw[0] === 0x1f) throw new Error(`${dl.suggestedFilename()} holds ${raw.subarray(0, 20)}`);
  const lines = raw.toString("utf8").trim().split("\r\n");
  if (lines.length < 10002 || !lines[0].startsWith("id,timestamp")) throw new Error(`the file has ${lines.length} lines, want the header and more than 10,000 rows`);
});

check("a job queued elsewhere appears in Exports without a reload, its criteria as filters", async ({ page }) => {
  await page.goto(`${PANEL}?view=exports`);
  await page.getByTestId("exports").waitFor({ timeout: T });
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const res = await fetch(`${BASE}/api/audit-logs/exports?async=true&format=jsonl&action=update&resourceType=recording_policy&from=${from}`, { method: "POST", headers: { Authorization: `Bearer ${ADMIN}` } });
  if (res.status !== 202) throw new Error(`queueing: ${res.status}`);
  const { id } = await res.json();
  const job = page.getByTestId("export-job").filter({ hasText: id.slice(0, 8) });
  await job.getByText("Resource kind: recording_policy").waitFor({ timeout: T });
  await job.getByText("JSON lines").waitFor({ timeout: T });
  // Newest first, as downloads are; an open range says where it ended.
  if (!(await page.getByTestId("export-job").first().innerText()).includes(id.slice(0, 8))) throw new Error("the newest job is not listed first");
  await job.getByText(/^To: .* \(when asked\)$/).waitFor({ timeout: T });
});

check("periodic exports: settings, keys, the exact verify command, delivered windows whose files download as named", async ({ page }) => {
  await page.goto(`${PANEL}?view=periodic`);
  await page.getByTestId("periodic-settings").waitFor({ timeout: T });
  if ((await fetch(`${BASE}/api/log-key`)).status === 200) {
    // The verifiable log: its signed checkpoint and the check's command.
    await page.getByTestId("log-checkpoint").getByText(`/tenants/${TENANT}`).waitFor({ timeout: T });
    const logCmd = await page.getByTestId("log-verify-command").innerText();
    if (!logCmd.startsWith(`auditlog log verify --tenant ${TENANT} --key '`) || !logCmd.endsWith(`' --api ${BASE} --token "$TOKEN"`)) throw new Error(`log verify command: ${logCmd}`);
  }
  const cmd = await page.getByTestId("verify-command").innerText();
  if (cmd !== `auditlog verify --dir ./periodic-exports --tenant ${TENANT} --api ${BASE} --token "$TOKEN"`) throw new Error(`verify command: ${cmd}`);
  await page.getByTestId("export-keys").getByText("signs new digests").waitFor({ timeout: T });
  if (await page.getByTestId("periodic-save").count()) throw new Error("a tenant admin is offered to change the settings");
  const win = page.getByTestId("periodic-window").first();
  await win.waitFor({ timeout: 90_000 });
  const { readFile } = await import("node:fs/promises");
  let [dl] = await Promise.all([page.waitForEvent("download", { timeout: T }), win.getByRole("button", { name: "Data file" }).click()]);
  const data = await readFile(await dl.path());
  if (!dl.suggestedFilename().endsWith(".ndjson.gz") || data[0] !== 0x1f || data[1] !== 0x8b) throw new Error(`data file ${dl.suggestedFilename()}: ${data.subarray(0, 4).toString("hex")}`);
  [dl] = await Promise.all([page.waitForEvent("download", { timeout: T }), win.getByRole("button", { name: "Signed digest" }).click()]);
  const digest = JSON.parse(await readFile(await dl.path(), "utf8"));
  if (!dl.suggestedFilename().endsWith(".json") || !digest.signature) throw new Error(`digest ${dl.suggestedFilename()}: ${JSON.stringify(digest).slice(0, 200)}`);
});

check("an operator changes a tenant's periodic export from the panel", async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${PANEL}?view=periodic#token=${SUPER}`);
  await page.getByLabel("Declared reason").fill("ticket INC-9: hourly exports asked by the tenant");
  await page.getByLabel("Declared reason").press("Enter");
  const settings = page.getByTestId("periodic-settings");
  await settings.getByText("daily windows").waitFor({ timeout: T });
  await settings.getByText("Hourly", { exact: true }).click();
  await page.getByTestId("periodic-save").click();
  await settings.getByText("hourly windows").waitFor({ timeout: T });
  await settings.getByText("Daily", { exact: true }).click();
  await page.getByTestId("periodic-save").click();
  await settings.getByText("daily windows").waitFor({ timeout: T });
  await ctx.close();
});

check("streams: a bad URL named under its field; a Splunk stream created, tested, paused, resumed and deleted, its health shown", async ({ page }) => {
  await page.goto(`${PANEL}?view=streams`);
  await page.getByTestId("stream-new").click();
  const form = page.getByTestId("stream-form");
  await form.getByLabel("Name").fill("SIEM from the browser");
  await form.getByLabel("Collector URL").fill("http://splunk.example.com:8088/services/collector/event");
  await form.getByLabel("HEC token").fill("12345678-9abc-def0-1234-56789abcdef0");
  await page.getByTestId("stream-create").click();
  await form.getByText("must be an https:// URL").waitFor({ timeout: T });
  await form.getByLabel("Collector URL").fill("https://splunk.example.com:8088/services/collector/event");
  await form.getByLabel("Filter").fill("-action:access");
  await page.getByTestId("stream-create").click();
  const card = page.getByTestId("stream").filter({ hasText: "SIEM from the browser" });
  await card.waitFor({ timeout: T });
  await card.getByText("filter -action:access").waitFor({ timeout: T });
  await card.getByTestId("stream-lag").waitFor({ timeout: T });
  await card.getByRole("button", { name: "Test delivery" }).click();
  await card.getByTestId("stream-test-result").getByText("Test delivery: retry").waitFor({ timeout: T }); // splunk.example.com does not resolve
  await card.getByRole("button", { name: "Pause" }).click();
  await page.locator('[data-testid="stream"][data-state="paused"]').filter({ hasText: "SIEM from the browser" }).waitFor({ timeout: T });
  await card.getByText("paused by").waitFor({ timeout: T });
  // The paused reason and every action read at 4.5:1 or more, armed or
  // not, wide and narrow.
  const streamText = ['[data-testid="stream"] button', '[data-testid="stream-reason"]'];
  await card.getByRole("button", { name: "Delete" }).click();
  await card.getByRole("button", { name: "Replay from the start" }).click();
  for (const [w, h] of [[1280, 720], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    if ((await contrast(page, `a paused stream at ${w} px`, streamText)) < 6) throw new Error("the stream's actions were not measured");
    await axe(page, `a paused stream at ${w} px`);
  }
  await page.setViewportSize({ width: 1280, height: 720 }); // the context's own
  await card.getByRole("button", { name: "Resume" }).click();
  await card.getByRole("button", { name: "Pause" }).waitFor({ timeout: T });
  await card.getByRole("button", { name: "Delete" }).click();
  await card.getByRole("button", { name: "Confirm: delete" }).click();
  await card.waitFor({ state: "detached", timeout: T });
  // Each change is in the tenant's log.
  const n = await apiTotal("resourceType=audit_stream");
  if (n < 4) throw new Error(`${n} records of stream changes in the log, want create, pause, resume, delete`);
});

check("legal holds: a holder places one (a bad query named under its field), sees what it holds, releases it and undoes that; an admin reads only; wide and narrow", async ({ browser }) => {
  for (const [w, h] of [[1280, 900], [390, 844]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h }, timezoneId: "Europe/Paris" });
    const page = await ctx.newPage();
    // The holder's token reaches its holds only: the panel opens them.
    await page.goto(`${PANEL}#token=${HOLD}`);
    await page.getByTestId("holds").waitFor({ timeout: T });
    const matter = `Dispute ${w}`;
    await page.getByTestId("hold-new").click();
    const form = page.getByTestId("hold-form");
    await form.getByLabel("Matter").fill(matter);
    await form.getByLabel("Reason").fill("counsel asked to keep the deletions");
    await form.getByLabel("Only events matching").fill("actoin:delete");
    await page.getByTestId("hold-save").click();
    await form.getByText("actoin").first().waitFor({ timeout: T }); // the refusal, under the query's field
    await form.getByLabel("Only events matching").fill("action:delete");
    await page.getByTestId("hold-save").click();
    const card = page.getByTestId("hold").filter({ hasText: matter });
    await card.waitFor({ timeout: T });
    const events = Number((await card.getByTestId("hold-events").textContent()).split(" ")[0].replace(/,/g, ""));
    const want = await apiTotal("action=delete");
    if (!(events >= want && want > 0)) throw new Error(`the hold says it holds ${events} events, the log has ${want} deletions`);
    await card.getByRole("button", { name: "Release" }).click();
    await card.getByRole("button", { name: "Confirm: release" }).click();
    await page.locator('[data-testid="hold"][data-state="releasing"]').filter({ hasText: matter }).waitFor({ timeout: T });
    await card.getByTestId("hold-release").getByText("Released on").waitFor({ timeout: T });
    await card.getByRole("button", { name: "Undo the release" }).click();
    await page.locator('[data-testid="hold"][data-state="active"]').filter({ hasText: matter }).waitFor({ timeout: T });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    if (wide > 0) throw new Error(`the holds view is ${wide}px wider than the ${w}px screen`);
    await page.mouse.move(0, 0); // no button left hovered
    await axe(page, `the holds at ${w} px`);
    // An admin reads the holds, and is told who places them.
    await page.goto(`${PANEL}?view=holds#token=${ADMIN}`);
    await page.getByTestId("hold").filter({ hasText: matter }).waitFor({ timeout: T });
    await page.getByTestId("holds-readonly").waitFor({ timeout: T });
    if (await page.getByTestId("hold-new").count()) throw new Error("an admin is offered to place a hold");
    const tabs = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    if (tabs > 0) throw new Error(`with every tab, the holds view is ${tabs}px wider than the ${w}px screen`);
    await ctx.close();
  }
  // Each step is in the tenant's log: placed, released, undone, twice.
  const n = await apiTotal("resourceType=legal_hold");
  if (n < 6) throw new Error(`${n} records of legal holds in the log, want 6`);
});

check("the operator-team view lists only cross-tenant accesses with their reasons", async ({ page }) => {
  await page.goto(`${PANEL}?view=operator&range=all`);
  const rows = page.getByTestId("event-row");
  await rows.first().waitFor({ timeout: T });
  const n = await rows.count();
  if ((await page.getByTestId("cross-tenant").count()) !== n) throw new Error("a row without the cross-tenant badge");
});

check("follow mode shows a new event as it arrives, and counts it", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&resourceType=recording_policy`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  const count = async () => Number((await page.getByTestId("total").innerText()).replace(/\D/g, ""));
  const before = await count();
  await page.getByLabel("Follow new events").check({ force: true });
  const e = policyEvent({ mode: "all", retentionDays: 90 }, { mode: "some", retentionDays: 90 });
  e.actor.email = "followed@x.example";
  await ingest(e);
  await page.getByTestId("event-row").filter({ hasText: "followed@x.example" }).first().waitFor({ timeout: T });
  const after = await count();
  if (after !== before + 1) throw new Error(`the count went from ${before} to ${after} with one event followed in`);
});

check("nothing moves while the page loads (cumulative layout shift below 0.01), wide and narrow", async ({ page }) => {
  const size = page.viewportSize();
  try {
    await layoutStaysPut(page);
  } finally {
    await page.setViewportSize(size);
  }
});

/** layoutStaysPut loads the list at two widths and fails on a layout
 * shift (as Chromium's layout-shift entries report it). */
async function layoutStaysPut(page) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto(`${PANEL}?range=30d`);
    await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
    // On a phone the filters are folded behind their button.
    await page.locator(width < 600 ? '[data-testid="filters-toggle"]' : '[data-testid="filters"]:not([data-skeleton])').waitFor({ timeout: T });
    await page.getByTestId("histogram").locator("rect").first().waitFor({ timeout: T });
    await page.waitForTimeout(500);
    const shifts = await page.evaluate(() => new Promise((resolve) => {
      new PerformanceObserver((list) => resolve(list.getEntries().filter((e) => !e.hadRecentInput)
        .map((e) => ({ value: e.value, nodes: e.sources.map((s) => s.node?.nodeName + "." + (s.node?.className?.baseVal ?? s.node?.className ?? "")).slice(0, 3) }))))
        .observe({ type: "layout-shift", buffered: true });
      setTimeout(() => resolve([]), 1000);
    }));
    const cls = shifts.reduce((a, s) => a + s.value, 0);
    if (cls >= 0.01) throw new Error(`${width} px wide: cumulative layout shift ${cls.toFixed(3)}: ${JSON.stringify(shifts)}`);
  }
}

check("dragging across the histogram narrows the dates", async ({ page }) => {
  await page.goto(`${PANEL}?range=30d`);
  const h = page.getByTestId("histogram");
  await h.locator("rect").first().waitFor({ timeout: T });
  // As a user would: once the page has settled.
  await page.locator('[data-testid="filters"]:not([data-skeleton])').waitFor({ timeout: T });
  const box = await h.boundingBox();
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await page.waitForURL(/range=custom.*from=.*to=/, { timeout: T }).catch(async (e) => {
    // Say what the histogram held, so that a failure explains itself.
    const bars = await h.locator("rect title").allTextContents();
    throw new Error(`${e.message}\n  url ${page.url()}\n  ${bars.length} bars, box ${JSON.stringify(box)}: ${bars.slice(0, 3).join(", ")} … ${bars.slice(-2).join(", ")}`);
  });
});

/** apiGet reads the public API as the admin. */
async function apiGet(path) {
  const res = await fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
  return res.json();
}

check("the search box: a pasted IP finds its events, half-typed text sends nothing, an invalid search says why under the box and keeps the histogram, an empty result offers what would find", async ({ page }) => {
  const some = (await apiGet("/api/audit-logs?pageSize=50")).data.find((e) => e.actor.ip && !e.actor.ip.includes(":"));
  if (!some) throw new Error("no event with an IPv4 address in the demo data");
  const sent = [];
  page.on("request", (r) => { if (r.url().includes("/api/audit-logs?")) sent.push(new URL(r.url()).searchParams.get("q")); });
  await page.goto(`${PANEL}?range=all`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const box = page.getByLabel("Search", { exact: true });
  // Half-typed: a qualifier without its value is never sent on a pause.
  await box.fill("actor:");
  await page.waitForTimeout(1500);
  if (sent.includes("actor:")) throw new Error("a half-typed search was sent on a pause");
  // A pasted address, sent with Enter: its events, all of them from it.
  await box.fill(some.actor.ip);
  await box.press("Enter");
  await page.waitForURL((u) => u.searchParams.get("q") === some.actor.ip, { timeout: T });
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const found = await apiGet(`/api/audit-logs?pageSize=5&q=${encodeURIComponent(some.actor.ip)}`);
  if (!found.data.length || found.data.some((e) => e.actor.ip !== some.actor.ip && !JSON.stringify(e).includes(some.actor.ip))) throw new Error(`a pasted IP: ${JSON.stringify(found.data.map((e) => e.actor.ip))}`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  // A search that does not parse: the reason under the box, the
  // histogram still drawn (the same bars, dimmed), no Retry (it would be
  // refused again).
  const bars = () => page.getByTestId("histogram").locator("rect").evaluateAll((rs) => rs.filter((r) => r.getBoundingClientRect().height > 0).length);
  await page.getByTestId("histogram-axis").waitFor({ timeout: T });
  const drawn = await bars();
  if (!drawn) throw new Error("no bar drawn before the invalid search");
  await box.fill("created:tomorrow");
  await box.press("Enter");
  await page.getByTestId("search-error").waitFor({ timeout: T });
  const under = await page.locator(".mantine-InputWrapper-error").innerText();
  if (!under.includes("tomorrow")) throw new Error(`the error under the box: ${under}`);
  if (!(await page.getByTestId("histogram").isVisible()) || (await bars()) !== drawn) throw new Error(`the histogram was blanked by an invalid search: ${await bars()} bars, ${drawn} before`);
  if (await page.getByRole("button", { name: "Retry" }).count()) throw new Error("a Retry button for a search that cannot parse");
  await contrast(page, "an invalid search");
  // A link or a reload with a search that does not parse has no bars
  // drawn before it: the window's bars without the search, dimmed, wide
  // and on a phone.
  for (const [w, h] of [[1280, 720], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto(`${PANEL}?range=all&q=${encodeURIComponent("created:tomorrow")}`);
    await page.getByTestId("search-error").waitFor({ timeout: T });
    await page.getByTestId("histogram-axis").waitFor({ timeout: T });
    if (!(await bars())) throw new Error(`at ${w} px, a first load with an invalid search drew no bar`);
    const dim = await page.getByTestId("histogram").getAttribute("opacity");
    if (dim !== "0.4") throw new Error(`at ${w} px, the bars without the search are not dimmed (opacity ${dim})`);
  }
  await page.setViewportSize({ width: 1280, height: 720 }); // the context's own
  await page.goto(`${PANEL}?range=all`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  // resource: takes an id; the kind was meant: the panel offers it.
  await box.fill("resource:queue");
  await box.press("Enter");
  const offer = page.getByTestId("suggestion").first();
  await offer.waitFor({ timeout: T });
  if (!/^type:queue finds \d/.test(await offer.innerText())) throw new Error(`the suggestion: ${await offer.innerText()}`);
  await offer.click();
  await page.waitForURL((u) => u.searchParams.get("q") === "type:queue", { timeout: T });
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
});

check("a quiet first screen: the service's own records are left out, one switch shows them", async ({ page }) => {
  const own = await apiGet("/api/audit-logs?pageSize=1&resourceType=periodic_export,audit_log_retention,tenant_plan");
  if (!own.data.length) throw new Error("the demo has none of the service's own records to leave out");
  await page.goto(`${PANEL}?range=all`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const users = () => page.getByTestId("event-row").evaluateAll((rows) => rows.map((r) => r.innerText));
  if ((await users()).some((t) => t.includes("system@auditlog.invalid"))) throw new Error("the default view shows the service's own records");
  await page.getByTestId("show-system").click();
  await page.waitForURL(/system=true/, { timeout: T });
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const shown = await apiGet(`/api/audit-logs?pageSize=50`);
  const newest = shown.data.findIndex((e) => e.actor.email === "system@auditlog.invalid");
  if (newest >= 0 && !(await users()).some((t) => t.includes("system@auditlog.invalid"))) throw new Error("the switch does not show the service's own records");
});

check("who listened to recordings, by user: the counts beside a list sorted by user, each a click from its events", async ({ page }) => {
  await page.goto(`${PANEL}?range=all&action=access&resourceType=recording&sort=actor.email`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  await page.getByTestId("user-counts").click();
  const first = page.getByTestId("user-count").first();
  await first.waitFor({ timeout: T });
  const email = await first.getAttribute("data-email");
  const count = Number(await first.getAttribute("data-count"));
  const want = await apiTotal(`action=access&resourceType=recording&actorEmail=${encodeURIComponent(email)}`);
  if (count !== want || !(await first.innerText()).includes(want.toLocaleString("en-US"))) throw new Error(`${email}: ${await first.innerText()} shown, the API counts ${want}`);
  await first.click();
  await page.waitForURL((u) => u.searchParams.get("actorEmail") === email, { timeout: T });
});

check("an event with a diff shows the change first, whatever its type: which queue was deleted", async ({ page }) => {
  const del = (await apiGet("/api/audit-logs?pageSize=1&action=delete&resourceType=queue")).data[0];
  if (!del) throw new Error("no queue deletion in the demo data");
  await page.goto(`${PANEL}?range=all&event=${del.id}`);
  const change = page.getByTestId("the-change");
  await change.waitFor({ timeout: T });
  const name = del.diff?.name?.from;
  if (!name || !(await change.innerText()).includes(JSON.stringify(name))) throw new Error(`the change shown: ${await change.innerText()} (the deleted queue: ${name})`);
});

check("the main views have no serious or critical accessibility violation (axe-core)", async ({ page }) => {
  await page.goto(`${PANEL}?range=all`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  await axe(page, "the list");
  await page.goto(`${PANEL}?range=all&event=${V3}`);
  await page.getByTestId("history").getByTestId("version").first().waitFor({ timeout: T });
  await axe(page, "the detail");
  await page.getByTestId("restore-before").click();
  await page.getByTestId("restore-confirm").getByText("Current").waitFor({ timeout: T });
  await axe(page, "the restore dialog");
  await page.goto(`${PANEL}?view=operator&range=all`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
  await axe(page, "the operator view");
  await page.goto(`${PANEL}?view=exports`);
  await page.getByTestId("export-job").first().waitFor({ timeout: T });
  await axe(page, "the exports");
  await page.goto(`${PANEL}?view=streams`);
  await page.getByTestId("streams").waitFor({ timeout: T });
  await page.getByTestId("stream-new").click();
  await page.getByTestId("stream-form").waitFor({ timeout: T });
  await axe(page, "the streams");
});

check("the keyboard alone: rows are one tab stop, arrows move, Escape closes the dialog then the drawer, focus returns to the row", async ({ page }) => {
  await page.goto(`${PANEL}?range=all`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const focused = () => page.evaluate(() => ({ testid: document.activeElement?.dataset?.testid, id: document.activeElement?.dataset?.id,
    inTable: !!document.activeElement?.closest('[data-testid="events"]') }));
  let f;
  for (let i = 0; i < 80 && (f = await focused()).testid !== "sort-actor.email"; i++) await page.keyboard.press("Tab");
  if (f.testid !== "sort-actor.email") throw new Error("Tab never reaches the User column's sort");
  await page.keyboard.press("Enter");
  await page.waitForURL(/sort=actor.email/, { timeout: T });
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  const sorts = await page.locator("th[aria-sort]").evaluateAll((ths) => ths.map((th) => th.getAttribute("aria-sort")));
  if (sorts.join() !== "none,ascending,none,none") throw new Error(`aria-sort of the headers: ${sorts}`);
  for (let i = 0; i < 40 && (f = await focused()).testid !== "event-row"; i++) await page.keyboard.press("Tab");
  if (f.testid !== "event-row") throw new Error("Tab never reaches a row");
  const ids = await page.getByTestId("event-row").evaluateAll((rows) => rows.map((r) => r.dataset.id));
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  if ((f = await focused()).id !== ids[2]) throw new Error(`ArrowDown twice focuses ${f.id}, want the third row ${ids[2]}`);
  // One tab stop: the next Tab leaves the table.
  await page.keyboard.press("Tab");
  if ((await focused()).inTable) throw new Error("Tab moves inside the table instead of leaving it");
  await page.keyboard.press("Shift+Tab");
  if ((f = await focused()).id !== ids[2]) throw new Error(`Shift+Tab comes back to ${f.id}, want the row last focused`);
  await page.keyboard.press("Enter");
  await page.waitForURL(/event=/, { timeout: T });
  await page.getByTestId("event-json").waitFor({ timeout: T });
  await page.keyboard.press("Escape");
  await page.waitForURL((u) => !u.search.includes("event="), { timeout: T });
  await page.waitForFunction((id) => document.activeElement?.dataset?.id === id, ids[2], { timeout: T });
  await page.getByLabel("Search", { exact: true }).focus();
  await page.keyboard.type("Firefox");
  await page.waitForURL(/q=Firefox/, { timeout: T });
  // Escape in the restore dialog closes the dialog, not the drawer.
  await page.goto(`${PANEL}?range=all&event=${V2}`);
  await page.getByTestId("restore-before").click();
  await page.getByTestId("restore-confirm").getByText("Current").waitFor({ timeout: T });
  await page.keyboard.press("Escape");
  await page.getByTestId("restore-confirm").waitFor({ state: "detached", timeout: T });
  if (!page.url().includes("event=") || !(await page.getByTestId("history").isVisible())) throw new Error("Escape in the dialog closed the drawer");
  // The focus goes back to the control that opened the dialog (issue 42),
  // the same after Cancel, and Tab stays in the drawer while it is open.
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === "restore-before", null, { timeout: T });
  await page.getByTestId("restore-before").click();
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  await page.getByTestId("restore-confirm").waitFor({ state: "detached", timeout: T });
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === "restore-before", null, { timeout: T });
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const inDrawer = await page.evaluate(() => !!document.activeElement?.closest(".mantine-Drawer-content"));
    if (!inDrawer) throw new Error(`Tab ${i + 1} left the open drawer for ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120))}`);
  }
  await page.keyboard.press("Escape");
  await page.waitForURL((u) => !u.search.includes("event="), { timeout: T });
});

/** fits fails when the page scrolls sideways, a drawer or dialog body is
 * wider than itself, or a button, badge or control label is cut or out of
 * the viewport: boxes measured against the viewport. */
async function fits(page, what) {
  const bad = await page.evaluate(() => {
    const W = document.documentElement.clientWidth;
    const out = [];
    if (document.documentElement.scrollWidth > W + 1) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const el of document.querySelectorAll(".mantine-Drawer-body, .mantine-Modal-body")) {
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.className.split(" ")[0]} scrolls: ${el.scrollWidth} > ${el.clientWidth}`);
    }
    for (const el of document.querySelectorAll(".mantine-Button-label, .mantine-Badge-label, .mantine-SegmentedControl-label, .mantine-InputWrapper-label, th, .al-badge")) {
      const r = el.getBoundingClientRect();
      if (!r.width || getComputedStyle(el).visibility === "hidden") continue;
      const inScroll = el.closest(".mantine-Drawer-body, .mantine-Modal-body, .al-scroll");
      if (el.scrollWidth > el.clientWidth + 1) out.push(`cut: "${el.textContent.trim().slice(0, 40)}" (${el.scrollWidth} > ${el.clientWidth})`);
      if (r.right > W + 1 && !inScroll?.matches(".al-scroll")) out.push(`off-screen: "${el.textContent.trim().slice(0, 40)}" at ${Math.round(r.right)} > ${W}`);
    }
    return out;
  });
  if (bad.length) throw new Error(`${what}: ${bad.slice(0, 5).join("; ")}`);
}

for (const [w, h] of [[1280, 900], [390, 844]]) {
  check(`at ${w} px the list, drawer, compare, restore dialog, exports and periodic exports fit, nothing cut`, async ({ browser }) => {
    const ctx = await browser.newContext({ viewport: { width: w, height: h }, timezoneId: "Europe/Paris" });
    const page = await ctx.newPage();
    await page.goto(`${PANEL}?range=all&resourceType=recording_policy#token=${ADMIN}`);
    await page.getByTestId("event-row").first().waitFor({ timeout: T });
    if (w < 600) {
      // The filters are in a sheet behind one button counting them; the
      // events are cards.
      await page.getByTestId("filters-toggle").getByText("Filters (2 active)").waitFor({ timeout: T });
      if (await page.getByTestId("filters").count()) throw new Error("the filters are out of their sheet on a phone");
      await fits(page, "the cards");
      await page.getByTestId("filters-toggle").click();
      await page.getByTestId("filter-sheet").getByTestId("filters").waitFor({ timeout: T });
      await fits(page, "the filters' sheet");
      await page.getByTestId("sheet-done").click();
      await page.getByTestId("filters").waitFor({ state: "detached", timeout: T });
    }
    await fits(page, "the list");
    await page.goto(`${PANEL}?range=all&event=${V3}`);
    const versions = page.getByTestId("version");
    await versions.nth(2).waitFor({ timeout: T });
    await versions.nth(0).getByRole("checkbox").check();
    await versions.nth(2).getByRole("checkbox").check();
    await page.getByTestId("compare").click();
    await page.getByTestId("comparison").waitFor({ timeout: T });
    if (w < 600 && (await page.locator(".mantine-Drawer-content").evaluate((d) => d.getBoundingClientRect().width)) < w - 1) throw new Error("the drawer is not full-screen on a phone");
    // Who made each version stays in view on a phone, under its time.
    if (w < 600 && !(await page.getByTestId("version-actor").first().isVisible())) throw new Error("a version's author is hidden on a phone");
    await fits(page, "the drawer and compare");
    await page.getByTestId("restore-before").click();
    await page.getByTestId("restore-confirm").getByText("Current").waitFor({ timeout: T });
    await fits(page, "the restore dialog");
    await page.goto(`${PANEL}?view=exports`);
    await page.getByTestId("export-job").first().waitFor({ timeout: T });
    await fits(page, "the exports view");
    await page.goto(`${PANEL}?view=periodic`);
    await page.getByTestId("periodic-window").first().waitFor({ timeout: 90_000 });
    await fits(page, "the periodic exports view");
    await ctx.close();
  });
}

check("a phone shows six events or more above the fold, each with when, what, who, outcome and why", async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, timezoneId: "Europe/Paris" });
  const page = await ctx.newPage();
  await page.goto(`${PANEL}?range=all#token=${ADMIN}`);
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  await page.getByTestId("histogram").locator("rect").first().waitFor({ timeout: T });
  const seen = await page.getByTestId("event-row").evaluateAll((cards) => cards.filter((c) => c.getBoundingClientRect().bottom <= innerHeight).length);
  if (seen < 6) throw new Error(`${seen} events above the fold at 390×844, want 6 or more`);
  // Every card: its time on one line, the outcome, the action, the
  // resource, the user; the first change where the event has one.
  const bad = await page.getByTestId("event-row").evaluateAll((cards) => cards.slice(0, 20).flatMap((c) => {
    const t = c.querySelector('[data-testid="card-time"]');
    const out = [];
    if (!t || t.getClientRects().length !== 1) out.push("its time is not on one line");
    if (!c.querySelector('[data-testid="card-outcome"]')?.textContent) out.push("no outcome");
    if (!c.querySelector(".al-badge")?.textContent || !c.textContent.includes("@")) out.push("no action or user");
    return out.map((o) => `${c.dataset.id}: ${o}`);
  }));
  if (bad.length) throw new Error(bad.slice(0, 5).join("; "));
  // A failure says so; an update shows its first change.
  await page.goto(`${PANEL}?range=all&outcome=failure`);
  await page.getByTestId("card-outcome").first().getByText("failure").waitFor({ timeout: T });
  await page.goto(`${PANEL}?range=all&resourceType=recording_policy&action=update`);
  await page.getByTestId("card-change").first().getByText("→").waitFor({ timeout: T });
  // The order is in the sheet, as the table's headers are on a wide
  // screen.
  await page.getByTestId("filters-toggle").click();
  // The sheet takes the focus while open.
  await page.waitForFunction(() => document.activeElement?.closest(".mantine-Drawer-content"), null, { timeout: T });
  await page.getByTestId("sort").click();
  await page.getByRole("option", { name: "Oldest first" }).click();
  await page.waitForURL(/order=asc/, { timeout: T });
  await axe(page, "the filter sheet at 390 px");
  if ((await readingOrder(page, '[data-testid="filter-sheet"] .mantine-Drawer-content', "the filter sheet")) < 6) throw new Error("too few stops in the filter sheet");
  await page.getByTestId("sheet-done").click();
  // Focus returns to the button that opened the sheet.
  await page.waitForFunction(() => document.activeElement?.dataset.testid === "filters-toggle", null, { timeout: T });
  await axe(page, "the cards at 390 px");
  // The sheet's close button says what it closes.
  await page.getByTestId("filters-toggle").click();
  await page.getByRole("button", { name: "Close the filters" }).click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="filter-sheet"] .mantine-Drawer-content'), null, { timeout: T });
  // A tap anywhere on a card opens its event: its middle, and each of its
  // lines (a card has no link a finger could hit instead).
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  for (const n of [0, 1, 2]) {
    const card = page.getByTestId("event-row").nth(n);
    const id = await card.getAttribute("data-id");
    const box = await card.boundingBox();
    for (const y of [0.5, 0.3, 0.7]) {
      const hit = await page.evaluate(([x, y]) => { const e = document.elementFromPoint(x, y); return `${e?.tagName}.${e?.className}`; }, [box.x + box.width * 0.5, box.y + box.height * y]);
      await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * y);
      await page.waitForURL((u) => u.searchParams.get("event") === id, { timeout: T }).catch((e) => {
        throw new Error(`a tap at ${Math.round(y * 100)}% of card ${n} (on ${hit}) did not open its event: ${page.url()} (${e.message.split("\n")[0]})`);
      });
      await page.getByTestId("event-json").waitFor({ timeout: T });
      await page.keyboard.press("Escape");
      await page.waitForURL((u) => !u.searchParams.has("event"), { timeout: T });
    }
  }
  // The operator team's reason is on the card in its view.
  await page.goto(`${PANEL}?view=operator&range=all`);
  await page.getByTestId("card-reason").first().waitFor({ timeout: T });
  await ctx.close();
});

check("an expired token gives a clear prompt, never a blank table", async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${PANEL}#token=${EXPIRED}`);
  await page.getByText("Your session has ended").waitFor({ timeout: T });
  await ctx.close();
});

check("the service down says so and offers a retry that works once it is back", async ({ page }) => {
  await page.route("**/api/audit-logs?**", (r) => r.abort("connectionrefused"));
  await page.goto(`${PANEL}?range=all`);
  const err = page.getByTestId("error-state");
  await err.getByText("unavailable").waitFor({ timeout: T });
  await page.unroute("**/api/audit-logs?**");
  await err.getByRole("button", { name: "Retry" }).click();
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
});

check("embedded in a host application, the panel takes the token by postMessage", async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(HOST);
  await page.frameLocator("iframe").getByTestId("event-row").first().waitFor({ timeout: T });
  await ctx.close();
});

// Screenshots of the main views at a desktop and a phone width, into
// PANEL_SCREENSHOTS (docs/screenshots when the Go test is asked to update
// them).
if (process.env.PANEL_SCREENSHOTS) {
  check("screenshots of the main views at both widths", async ({ browser }) => {
    const dir = process.env.PANEL_SCREENSHOTS;
    for (const [w, h, name] of [[1280, 900, "wide"], [390, 844, "narrow"]]) {
      const ctx = await browser.newContext({ viewport: { width: w, height: h }, timezoneId: "Europe/Paris" });
      const page = await ctx.newPage();
      const shot = (view) => page.screenshot({ path: `${dir}/${view}-${name}.png` });
      // The list and the operator view are drawn from fixed data by
      // e2e/shots.mjs, which the Go test compares with the committed ones.
      await page.goto(`${PANEL}?range=all&event=${V3}#token=${ADMIN}`);
      await page.getByLabel(`compare ${V1}`).check();
      await page.getByLabel(`compare ${V3}`).check();
      await page.getByTestId("compare").click();
      await page.getByTestId("comparison").waitFor({ timeout: T });
      await shot("detail");
      await page.getByTestId("restore-before").click();
      await page.getByTestId("restore-confirm").getByText("Current").waitFor({ timeout: T });
      await shot("restore");
      await page.goto(`${PANEL}?view=exports`);
      await page.getByTestId("export-job").first().waitFor({ timeout: T });
      await shot("exports");
      await page.goto(`${PANEL}?view=periodic`);
      await page.getByTestId("periodic-window").first().waitFor({ timeout: 90_000 });
      await shot("periodic");
      await ctx.close();
    }
  });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
// A zone other than the machine's UTC, so that "the viewer's zone" is seen.
const ctx = await browser.newContext({ acceptDownloads: true, timezoneId: "Europe/Paris" });
const page = await ctx.newPage();
let failed = 0;
// PANEL_ONLY=<part of a check's name> runs only the checks that name it
// (while working on one; make test runs them all).
const only = process.env.PANEL_ONLY ?? "";
const chosen = checks.filter((c) => c.name.includes(only));
if (!chosen.length) throw new Error(`no check's name contains PANEL_ONLY=${only}`);
if (only) {
  // The checks run in order on one page, signed in by the early ones.
  await page.goto(`${PANEL}?range=all#token=${ADMIN}`);
  await page.getByTestId("event-row").first().waitFor({ timeout: T });
}
for (const c of chosen) {
  const began = Date.now();
  try {
    try {
      await c.fn({ page, browser });
    } catch (e) {
      // The machine is shared and noisy: a check that timed out (and only
      // that) runs once more, from a fresh load; its first failure is
      // printed, and the Go test repeats it on one line.
      if (e.name !== "TimeoutError") throw e;
      console.log(`RETRY ${c.name}: ${e.message.split("\n")[0]}`);
      await page.goto("about:blank");
      await c.fn({ page, browser });
    }
    // Each check's seconds, so that a slow one is seen in make test's log.
    console.log(`ok ${c.name} (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${c.name}: ${e.message.split("\n").slice(0, 6).join("\n")}`);
    await page.screenshot({ path: `${process.env.PANEL_SHOTS ?? "/tmp"}/panel-fail-${failed}.png` }).catch(() => {});
  }
}
await browser.close();
console.log(`${chosen.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
