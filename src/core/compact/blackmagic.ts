/**
 * The names the `pi-openai-blackmagic-compact` Pi package gives its checkpoints, and how to tell its compactions
 * apart (docs/checkpoints.md). A compaction whose `details.replay.namespace` is this namespace is replayed by that
 * package on the next request; the timeline entry (a `custom` entry of this type, the compaction's child) follows
 * each of its compactions and records the method and any failure class.
 */
import { isPlainObject } from "../jsonShape.js";
import { compactionDetails } from "./checkpointDetails.js";
import type { Entry } from "../session/index.js";

export const BLACKMAGIC_NAMESPACE = "pi-openai-blackmagic-compact/1";
export const TIMELINE_TYPE = "pi-openai-blackmagic-compact/compaction-timeline/1";

/** Who wrote a compaction entry's format: Blackmagic's schema 1 (ours writes it too), pi's own, or OMP's. */
export type CompactionProducer = "blackmagic" | "pi" | "omp";

/** A Blackmagic timeline entry: folded into its compaction wherever compactions are shown. */
export function isTimelineEntry(entry: Entry): boolean {
  return entry.type === "custom" && entry.data.customType === TIMELINE_TYPE;
}

/** Whether compaction `details` are in Blackmagic's schema 1 (a `remote_applied` checkpoint or a `local_fallback`). */
export function isBlackmagicDetails(details: unknown): details is Record<string, unknown> {
  return (
    isPlainObject(details) &&
    details.schemaVersion === 1 &&
    (details.state === "remote_applied" || details.state === "local_fallback")
  );
}

export function compactionProducer(details: unknown, flavor: "pi" | "omp"): CompactionProducer {
  return isBlackmagicDetails(details) ? "blackmagic" : flavor;
}

const SURFACE_NAMES: Record<string, string> = {
  openai_api: "OpenAI",
  azure_openai: "Azure",
  chatgpt_codex: "Codex",
};

/** The surface a user knows: OpenAI, Azure or Codex (an unknown surface as written). */
export function surfaceName(surface: string): string {
  return SURFACE_NAMES[surface] ?? surface;
}

/**
 * How a compaction was made, in a few words: "server · OpenAI", "local fallback (remote_error)", or null for a
 * harness's own compaction.
 */
export function compactionMethod(details: unknown): string | null {
  if (!isBlackmagicDetails(details)) return null;
  if (details.state === "local_fallback") {
    const failure = typeof details.failureClass === "string" ? details.failureClass : "unknown";
    return `local fallback (${failure})`;
  }
  const identity = compactionDetails(details)?.identity ?? {};
  return `server · ${surfaceName(typeof identity.surface === "string" ? identity.surface : "unknown")}`;
}
