// The panel's browser performance, for `make bench` (cmd/auditbench):
// Playwright (playwright-core) drives Debian's Chromium against a real
// API and panel holding the benchmark's events. RUNS navigations of each
// kind:
//   - coldFirstRows: in a new browser context (an empty cache, as on a
//     first visit: the JavaScript is fetched, parsed and compiled), from
//     the start of navigation to the 50th row in the table
//     (performance.now() in the page, whose origin is the navigation
//     start), noted by a MutationObserver on every change;
//   - warmFirstRows: the same in one context visited twice beforehand
//     (a return visit: the hashed assets are cached for a year, and
//     Chromium keeps their compiled code);
//   - filterChange: from the click on the first row's user (the panel
//     filters on that user; the time of the click event in the page) to
//     the table showing only that user's rows, no longer marked busy.
// Prints one JSON object: {"coldFirstRows": [ms...], "warmFirstRows":
// [ms...], "filterChange": [ms...]}.
import { chromium } from "playwright-core";

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const URL_ = env("PERF_URL"); // the panel with its query (the view measured)
const TOKEN = env("PERF_TOKEN");
const RUNS = Number(env("PERF_RUNS"));
const T = 60_000;

// Runs in the page before its own scripts: marks when the rows arrive
// and when a filter's rows replace them.
function observe() {
  const rows = () => document.querySelectorAll('[data-testid="event-row"]');
  const mark = () => {
    const r = rows();
    if (window.__firstRows === undefined && r.length >= 50) window.__firstRows = performance.now();
    const want = window.__filterWant;
    if (want && window.__filterDone === undefined && r.length > 0) {
      const table = document.querySelector('[data-testid="events"]');
      const all = [...r].every((row) => row.children[1].textContent.trim().toLowerCase() === want);
      if (all && table && table.getAttribute("aria-busy") === "false") window.__filterDone = performance.now();
    }
  };
  new MutationObserver(mark).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  document.addEventListener("click", () => { window.__clickAt ??= performance.now(); }, true);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
/** visit navigates page to the view and returns when its rows are in. */
async function visit(page, i) {
  await page.goto(`${URL_}&visit=${i}#token=${TOKEN}`);
  await page.waitForFunction(() => window.__firstRows !== undefined, null, { timeout: T, polling: 50 });
  return page.evaluate(() => window.__firstRows);
}

/** filterChange clicks the first row's user and times the new table. */
async function filterChange(page) {
  // The histogram's request is part of the first view: let it finish
  // before the filter change is timed.
  await page.waitForLoadState("networkidle", { timeout: T });
  const user = page.getByTestId("event-row").first().locator("td").nth(1).getByRole("button");
  const email = (await user.innerText()).trim().toLowerCase();
  await page.evaluate((want) => { window.__filterWant = want; }, email);
  await user.click();
  await page.waitForFunction(() => window.__filterDone !== undefined, null, { timeout: T, polling: 50 });
  return page.evaluate(() => window.__filterDone - window.__clickAt);
}

const newContext = async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.addInitScript(observe);
  return ctx;
};
const out = { coldFirstRows: [], warmFirstRows: [], filterChange: [] };
const warm = await newContext();
const wp = await warm.newPage();
for (let i = 0; i < 2; i++) await visit(wp, -1 - i);
for (let i = 0; i < RUNS; i++) {
  const ctx = await newContext();
  out.coldFirstRows.push(await visit(await ctx.newPage(), i));
  await ctx.close();
  out.warmFirstRows.push(await visit(wp, i));
  out.filterChange.push(await filterChange(wp));
}
await browser.close();
console.log(JSON.stringify(out));
