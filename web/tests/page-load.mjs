// The page's model load as the browser tests wait for it: `#app`'s `data-load` reaches
// "ready" or "error" (browser.mjs, backend-race.mjs, hostile.mjs).

/** Waits until the page's load has ended, for at most `timeout` ms, looking every `polling` ms. */
export async function loadEnded(page, { timeout, polling }) {
  await page.waitForFunction(() => {
    const s = document.querySelector("#app")?.getAttribute("data-load");
    return s === "ready" || s === "error";
  }, null, { timeout, polling });
}
