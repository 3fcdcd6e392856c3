// Shared by the in-host integration suites.
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll `probe` until it returns something truthy; fail with `what` after the timeout. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
