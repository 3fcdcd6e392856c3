/** The effective context at an entry: every message the model saw, with its estimated size. */
import { formatBytes } from "../protocol/format.js";
import type { ContextImage, ContextModel } from "../protocol/views.js";
import { action, boot, h, mount, section, table, tokens } from "./common.js";

const KIND: Record<string, string> = { compactionSummary: "compaction summary", branchSummary: "branch summary" };

/** An image as a line: its type and size, or, for an OMP blob that is not there, the blob's hash. */
function imageText(i: ContextImage): string {
  if (i.missing) return `[image missing: blob sha256:${i.blob}]`;
  const size = i.bytes === null ? "" : `, ${formatBytes(i.bytes)}`;
  return `[image ${i.mimeType}${size}${i.blob ? ", from the blob store" : ""}]`;
}

boot<ContextModel>((m) => {
  const root = document.getElementById("root")!;
  mount(
    root,
    h(
      "header",
      {},
      h("h1", {}, `Context: ${m.title}`),
      h(
        "p",
        { class: "muted" },
        `At entry ${m.entryId ?? "(start)"} · ${m.rows.length} messages · about ${tokens(m.totalTokens)} tokens ` +
          "(estimated as pi does: 4 characters per token)" +
          (m.model ? ` · model ${m.model}` : "") +
          (m.thinkingLevel ? ` · thinking ${m.thinkingLevel}` : ""),
      ),
    ),
    m.compactions.length
      ? section(
          "Compactions on this path",
          table(
            "What each compaction dropped",
            [
              {
                title: "Compaction",
                value: (c) =>
                  action(
                    c.entryId,
                    { type: "inspectCheckpoint", file: m.file, entryId: c.entryId },
                    "Inspect the checkpoint",
                  ),
              },
              {
                title: "In effect here",
                value: (c) => (c.active ? "yes: its summary opens the context" : "no: replaced by a later one"),
              },
              { title: "Entries dropped", value: (c) => c.droppedEntries, numeric: true },
              { title: "Tokens dropped (est.)", value: (c) => tokens(c.droppedTokens), numeric: true },
              {
                title: "tokensBefore",
                value: (c) => (c.tokensBefore === null ? "" : tokens(c.tokensBefore)),
                numeric: true,
              },
            ],
            m.compactions,
          ),
        )
      : null,
    section(
      "Messages",
      table(
        "The messages the model saw, in order",
        [
          { title: "#", value: (r) => r.index + 1, numeric: true },
          { title: "Role", value: (r) => KIND[r.kind] ?? r.role },
          {
            title: "Content",
            value: (r) =>
              h(
                "div",
                {},
                r.text.length > 400
                  ? h("details", {}, h("summary", {}, `${r.text.slice(0, 200)}…`), h("pre", {}, r.text))
                  : h("pre", {}, r.text),
                ...(r.images ?? []).map((i) => h("p", { class: i.missing ? "error" : "muted" }, imageText(i))),
              ),
          },
          { title: "Tokens (est.)", value: (r) => tokens(r.tokens), numeric: true },
        ],
        m.rows,
        (r) => ({ class: r.kind === "compactionSummary" || r.kind === "branchSummary" ? "summary-row" : undefined }),
      ),
    ),
  );
  return {
    messages: m.rows.length,
    totalTokens: m.totalTokens,
    compactions: m.compactions.length,
    first: m.rows[0]?.kind ?? "",
  };
});
