/**
 * pi 1.6's bookkeeping entries in words: `usage` entries (calls outside the conversation, e.g. the prompt-cache
 * warmer) and the custom entries pi itself writes (`pi.virtual-model-state`, `pi.bug-report`, codemode's
 * `codemode-store`). docs/session-format.md#pi-1-6.
 */
import { formatCost, formatTokens, truncate } from "../protocol/format.js";
import { isPlainObject } from "./jsonShape.js";
import type { Entry } from "./session/entry.js";

/** "cache warm · claude-opus-5 · 12.2k tokens · $0.0061": the entry's usage facts as the reader counted them. */
export function describeUsageEntry(entry: Pick<Entry, "data" | "usage">): string {
  const d = entry.data;
  const kind = typeof d.kind === "string" && d.kind ? truncate(d.kind.replace(/_/g, " "), 40) : "usage";
  const facts = Array.isArray(entry.usage) ? entry.usage[0] : entry.usage;
  const parts = [kind];
  if (typeof d.model === "string" && d.model) parts.push(truncate(d.model, 40));
  if (facts) parts.push(`${formatTokens(facts.totalTokens)} tokens`, formatCost(facts.cost));
  if (typeof d.note === "string" && d.note) parts.push(truncate(d.note, 40));
  return parts.join(" · ");
}

/** What a custom entry is: pi's own kinds described, an extension's named by its type. */
export function describeCustomEntry(d: Record<string, unknown>): string {
  const data = isPlainObject(d.data) ? d.data : {};
  switch (d.customType) {
    case "pi.virtual-model-state": {
      const phase = isPlainObject(data.state) && typeof data.state.phase === "string" ? data.state.phase : "";
      const model = `${String(data.provider ?? "")}/${String(data.modelId ?? "")}`;
      return `virtual model ${truncate(model, 60)}${phase ? ` · ${truncate(phase, 40)}` : ""}`;
    }
    case "pi.bug-report": {
      const how = data.delivery === "upload" ? "uploaded" : data.delivery === "zip" ? "saved as zip" : "filed";
      const hint = typeof data.hint === "string" && data.hint ? `: ${JSON.stringify(truncate(data.hint, 50))}` : "";
      return `bug report ${how}${hint}`;
    }
    case "codemode-store": {
      const set = isPlainObject(data.set) ? Object.keys(data.set) : [];
      const removed = Array.isArray(data.delete) ? data.delete.length : 0;
      return `codemode store: ${set.length} set${removed ? `, ${removed} deleted` : ""}`;
    }
    default:
      return `custom ${String(d.customType)}`;
  }
}
