// Shared by the UI walks: after hostile content was shown, prove that nothing it carried took effect.
// `logs` are the page's console lines (from `logStart` on: this walk's part), `dialogs` the browser dialogs opened.

/** Throws naming what happened: a dialog opened, a script set `window.__pwned`, or the CSP refused something. */
export async function assertNothingRan(page, { logs, logStart, dialogs }) {
  const pwned = [];
  for (const frame of page.frames()) {
    const v = await frame.evaluate(() => window.__pwned).catch(() => undefined);
    if (v !== undefined) pwned.push(`${frame.url()}: ${v}`);
  }
  const csp = logs
    .slice(logStart)
    .filter((l) => /Content Security Policy|Refused to (execute|load|apply|run)/i.test(l));
  if (dialogs.length) throw new Error(`a dialog opened: ${dialogs.join(" | ")}`);
  if (pwned.length) throw new Error(`injected script ran: ${pwned.join(" | ")}`);
  if (csp.length) throw new Error(`CSP violations: ${csp.join(" | ")}`);
}
