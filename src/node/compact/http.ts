/**
 * The one HTTP path of Compact Branch, for the SDK (as its `fetch`) and for our own Codex requests:
 * - redirects are never followed: a 3xx comes back as it is and fails the call (a redirect could carry the key and the
 *   conversation to a host the transport rules refuse);
 * - one deadline covers the whole call, the body included (the SDK's own timeout stops when the headers arrive);
 * - the answer is read up to a cap, and the connection is dropped past it.
 * Policy and reasons: SECURITY.md ("Network").
 */
import { CompactionFailure } from "./failure.js";

/** The most an answer may hold. A compaction answer is a few MB at most; a larger one is refused unread. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const MB = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

function tooLarge(surface: string, limit: number): CompactionFailure {
  return new CompactionFailure("remote_error", `${surface} sent an answer larger than ${MB(limit)}; it was not read`);
}

/** `fetch` that never follows a redirect and stops reading an answer at `limit` bytes. */
export function guardedFetch(surface: string, base: typeof fetch = fetch, limit = MAX_ANSWER_BYTES): typeof fetch {
  return async (input, init) => {
    const res = await base(input, { ...init, redirect: "manual" });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      // Without the Location header and the body: a 3xx is an error, never a next hop.
      return new Response(null, { status: res.status, statusText: res.statusText });
    }
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > limit) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge(surface, limit);
    }
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(tooLarge(surface, limit));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** A redirect is refused, and the message says so. */
export function redirectFailure(status: number, surface: string): CompactionFailure {
  return new CompactionFailure(
    "remote_error",
    `${surface} answered with a redirect (HTTP ${status}); redirects are not followed`,
  );
}

/**
 * One deadline for a whole call (headers and body), combined with the caller's cancel signal. `timedOut()` tells a
 * deadline from a cancel; `done()` clears the timer.
 */
export function deadline(timeoutMs: number, cancel?: AbortSignal) {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, timeoutMs);
  const onCancel = () => controller.abort();
  if (cancel?.aborted) controller.abort();
  cancel?.addEventListener("abort", onCancel);
  return {
    signal: controller.signal,
    timedOut: () => expired,
    done: () => {
      clearTimeout(timer);
      cancel?.removeEventListener("abort", onCancel);
    },
  };
}

/** The `CompactionFailure` an error carries, through the SDK's wrapping (`cause`) if need be. */
export function failureIn(err: unknown): CompactionFailure | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (e instanceof CompactionFailure) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
