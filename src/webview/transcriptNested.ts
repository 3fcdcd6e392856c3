/** A tool result's nested calls in the transcript page (pi 1.6 `nestedCalls`): session text, set as text. */
import * as l10n from "@vscode/l10n";
import { formatDuration } from "../protocol/format.js";
import type { NestedCall } from "../protocol/transcript.js";
import { h } from "./dom.js";

/** The calls a tool made through other tools (pi 1.6 `nestedCalls`): name, file, status, duration. */
export function nestedList(calls: NestedCall[]): HTMLElement {
  return h(
    "ul",
    { class: "nested muted", "aria-label": l10n.t("Nested calls") },
    ...calls.map((c) =>
      h(
        "li",
        { class: c.status === "ok" ? undefined : "error" },
        [
          c.path ? `${c.name} ${c.path}` : c.name,
          c.status,
          c.durationMs === null ? null : formatDuration(c.durationMs),
          c.error,
        ]
          .filter(Boolean)
          .join(" · "),
      ),
    ),
  );
}
