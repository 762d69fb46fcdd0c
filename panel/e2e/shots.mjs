// Screenshots of the log at a desktop and a phone width, of a fixed
// dataset (the demo's fixed dates, AUDITLOG_SEED_END unset) at a fixed
// time, so that the same build draws the same pixels: cmd/auditlog's
// TestPanelLayoutMatchesScreenshots compares them with the ones committed
// in docs/screenshots (and writes those with AUDITLOG_UPDATE_SCREENSHOTS=1).
import { chromium } from "playwright-core";

const { PANEL_BASE, PANEL_ADMIN_TOKEN: ADMIN, PANEL_SUPER_TOKEN: SUPER, PANEL_SHOTS_OUT: OUT, PANEL_DEMO_END: END } = process.env;
const T = 60_000;
const end = new Date(END);
// The demo's 30 days, closed: nothing written while the test runs (the
// operator's own access records, say) falls in them.
const month = `range=custom&from=${new Date(end.getTime() - 30 * 86_400_000).toISOString()}&to=${end.toISOString()}`;
const panel = `${PANEL_BASE}/settings/audit/`;

/** settled waits until the rows, the histogram and (wide) the filter
 * bar are drawn, and nothing animates. */
async function settled(page, wide) {
  await page.locator('[data-testid="events"][aria-busy="false"]').waitFor({ timeout: T });
  await page.getByTestId("histogram-axis").waitFor({ timeout: T });
  if (wide) await page.locator('[data-testid="filters"]:not([data-skeleton])').waitFor({ timeout: T });
  await page.evaluate(() => document.fonts.ready);
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"), null, { timeout: T });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--font-render-hinting=none", "--disable-lcd-text", "--force-color-profile=srgb", "--hide-scrollbars"],
});
try {
  for (const [w, h, name] of [[1280, 900, "wide"], [390, 844, "narrow"]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h }, timezoneId: "Europe/Paris", locale: "en-US", reducedMotion: "reduce" });
    const page = await ctx.newPage();
    await page.clock.setFixedTime(end);
    const shot = (view) => page.screenshot({ path: `${OUT}/${view}-${name}.png`, animations: "disabled", caret: "hide" });
    await page.goto(`${panel}?${month}#token=${ADMIN}`);
    await settled(page, w > 600);
    await shot("list");
    if (w < 600) {
      await page.getByTestId("filters-toggle").click();
      await page.getByTestId("filter-sheet").getByTestId("filters").waitFor({ timeout: T });
      await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"), null, { timeout: T });
      await shot("filters");
    }
    await page.goto(`${panel}?view=operator&${month}#token=${SUPER}`);
    await page.getByLabel("Declared reason").fill("ticket INC-7");
    await page.getByLabel("Declared reason").press("Enter");
    await settled(page, w > 600);
    await page.mouse.move(0, 0);
    await shot("operator");
    await ctx.close();
  }
} finally {
  await browser.close();
}
