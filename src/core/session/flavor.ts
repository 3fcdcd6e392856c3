/** Which agent wrote a session (pi or Oh My Pi), the name it shows, and the header's fork link. */
import { OMP_ENTRY_TYPES, type SessionHeader, type TitleSlot } from "../schema.js";
import type { Entry } from "./entry.js";
import type { Flavor, ForkOf } from "./model.js";

const OMP_TYPES = new Set<string>(OMP_ENTRY_TYPES);

export function detectFlavor(header: SessionHeader, titleSlot: TitleSlot | null, ompEntry: boolean): Flavor {
  if (titleSlot) return "omp";
  for (const key of [
    "title",
    "titleSource",
    "providerPromptCacheKey",
    "previousSessionFiles",
    "additionalDirectories",
  ]) {
    if (key in header) return "omp";
  }
  return ompEntry ? "omp" : "pi";
}

/** An entry only OMP writes. */
export function isOmpEntry(entry: Entry): boolean {
  return (
    OMP_TYPES.has(entry.type) ||
    entry.fromExtension === true ||
    (entry.type === "model_change" && typeof entry.data.model === "string")
  );
}

export function resolveName(
  flavor: Flavor,
  header: SessionHeader,
  titleSlot: TitleSlot | null,
  titleChanges: { title: string; source: string | undefined }[],
  sessionInfoName: string | null | undefined,
): { name: string | null; titleSource: "auto" | "user" | null } {
  if (flavor === "pi") return { name: sessionInfoName ?? null, titleSource: null };
  // OMP: newest accepted title_change (a "user" title is sticky against later "auto" ones, docs/session-format.md#t21).
  let changed: { title: string; source: string | undefined } | undefined;
  for (const change of titleChanges) {
    if (changed?.source === "user" && change.source === "auto") continue;
    changed = change;
  }
  if (titleSlot) {
    const slotTitle = titleSlot.title;
    const source = titleSlot.source ?? null;
    if (!slotTitle) return { name: null, titleSource: source };
    // The slot truncates long titles by code points: the full text is in the title_change entry.
    if (changed && changed.title.length > slotTitle.length && changed.title.startsWith(slotTitle)) {
      return { name: changed.title, titleSource: source };
    }
    return { name: slotTitle, titleSource: source };
  }
  if (typeof header.title === "string" && header.title)
    return { name: header.title, titleSource: header.titleSource ?? null };
  if (changed && changed.title)
    return {
      name: changed.title,
      titleSource: changed.source === "user" || changed.source === "auto" ? changed.source : null,
    };
  return { name: null, titleSource: null };
}

export function forkOfHeader(header: SessionHeader): ForkOf | null {
  let raw: string | undefined;
  let field: ForkOf["field"] = "parentSession";
  if (typeof header.parentSession === "string" && header.parentSession) raw = header.parentSession;
  else if (typeof header.branchedFrom === "string" && header.branchedFrom) {
    raw = header.branchedFrom;
    field = "branchedFrom";
  }
  if (raw === undefined) return null;
  return { raw, kind: classifyParentSession(raw), field };
}

/** A parentSession is a file path (pi, OMP branch/subagent) or a session id (OMP /fork, --fork, /tan):
 * docs/session-format.md#t10. */
function classifyParentSession(raw: string): "path" | "id" {
  return /[\\/]/.test(raw) || raw.endsWith(".jsonl") ? "path" : "id";
}
