/** The effective context at an entry: every message the model saw, with its estimated size. */
import { formatBytes, formatDateTime } from "../protocol/format.js";
import { snippetPlainText } from "../protocol/markdown.js";
import type { ContextImage, ContextModel } from "../protocol/views.js";
import { action, boot, h, mount, section, table, tokens } from "./common.js";
import type { Child } from "./dom.js";
import * as l10n from "@vscode/l10n";

/** How a summary message is named in the role column. */
const kindText = (kind: string): string | undefined =>
  kind === "compactionSummary"
    ? l10n.t("compaction summary")
    : kind === "branchSummary"
      ? l10n.t("branch summary")
      : undefined;

/** An image as a line: its type and size, or, for an OMP blob that is not there, the blob's hash. */
function imageText(i: ContextImage): string {
  if (i.missing) return `[${l10n.t("image missing: blob sha256:{0}", i.blob ?? "")}]`;
  const size = i.bytes === null ? "" : `, ${formatBytes(i.bytes)}`;
  return `[${l10n.t("image {0}", i.mimeType)}${size}${i.blob ? `, ${l10n.t("from the blob store")}` : ""}]`;
}

type Row = ContextModel["rows"][number];

/** The role, and what a pi 1.6 context edit did to the message. */
function roleCell(r: Row): Child {
  const role = kindText(r.kind) ?? r.role;
  if (!r.edit) return role;
  const mark = r.edit.state === "omitted" ? l10n.t("left out of context") : l10n.t("replaced in context");
  return h("div", {}, role, h("p", { class: "muted", title: l10n.t("by context edit {0}", r.edit.id) }, mark));
}

/** A long text folded: its first words as plain text (markup dropped) on the fold, the exact text inside. */
function textBlock(text: string): HTMLElement {
  return text.length > 400
    ? h("details", {}, h("summary", {}, `${snippetPlainText(text.slice(0, 400)).slice(0, 200)}…`), h("pre", {}, text))
    : h("pre", {}, text);
}

/** The message as the model saw it; an edited one with its original one click away. */
function contentCell(r: Row): HTMLElement {
  const images = (r.images ?? []).map((i) => h("p", { class: i.missing ? "error" : "muted" }, imageText(i)));
  if (r.edit?.state === "omitted")
    return h(
      "div",
      {},
      h("details", {}, h("summary", {}, l10n.t("Original (not sent to the model)")), textBlock(r.text)),
      ...images,
    );
  const original =
    r.edit?.state === "replaced"
      ? h("details", {}, h("summary", {}, l10n.t("Original")), textBlock(r.edit.original ?? ""))
      : null;
  return h("div", {}, textBlock(r.text), original, ...images);
}

boot<ContextModel>((m) => {
  const inContext = m.rows.filter((r) => r.edit?.state !== "omitted");
  const root = document.getElementById("root")!;
  mount(
    root,
    h(
      "header",
      {},
      h("h1", {}, l10n.t("Context: {0}", m.title)),
      h(
        "p",
        { class: "muted" },
        l10n.t(
          "At “{0}” · {1} messages · about {2} tokens",
          m.entryLabel ?? l10n.t("(start)"),
          inContext.length,
          tokens(m.totalTokens),
        ) +
          " " +
          l10n.t("(estimated as pi does: 4 characters per token)") +
          (m.model ? ` · ${l10n.t("model {0}", m.model)}` : "") +
          (m.thinkingLevel ? ` · ${l10n.t("thinking {0}", m.thinkingLevel)}` : ""),
      ),
    ),
    m.compactions.length
      ? section(
          l10n.t("Compactions on this path"),
          table(
            l10n.t("What each compaction dropped"),
            [
              {
                title: l10n.t("Compaction"),
                value: (c) =>
                  action(
                    l10n.t("Compaction at {0} (line {1})", formatDateTime(c.time), c.line),
                    { type: "inspectCheckpoint", file: m.file, entryId: c.entryId },
                    l10n.t("Inspect the checkpoint"),
                  ),
              },
              {
                title: l10n.t("In effect here"),
                value: (c) =>
                  c.active ? l10n.t("yes: its summary opens the context") : l10n.t("no: replaced by a later one"),
              },
              { title: l10n.t("Messages summarized"), value: (c) => c.droppedEntries, numeric: true },
              { title: l10n.t("Their tokens (est.)"), value: (c) => tokens(c.droppedTokens), numeric: true },
              {
                title: l10n.t("Tokens before (recorded)"),
                value: (c) => (c.tokensBefore === null ? "" : tokens(c.tokensBefore)),
                numeric: true,
              },
            ],
            m.compactions,
          ),
        )
      : null,
    section(
      l10n.t("Messages"),
      table(
        l10n.t("The messages the model saw, in order"),
        [
          { title: "#", value: (r) => (r.index < 0 ? "—" : r.index + 1), numeric: true },
          { title: l10n.t("Role"), value: roleCell },
          { title: l10n.t("Content"), value: contentCell },
          { title: l10n.t("Tokens (est.)"), value: (r) => tokens(r.tokens), numeric: true },
        ],
        m.rows,
        (r) => ({
          class:
            r.edit?.state === "omitted"
              ? "omitted-row"
              : r.kind === "compactionSummary" || r.kind === "branchSummary"
                ? "summary-row"
                : undefined,
        }),
      ),
    ),
  );
  return {
    messages: inContext.length,
    replaced: m.rows.filter((r) => r.edit?.state === "replaced").length,
    omitted: m.rows.length - inContext.length,
    totalTokens: m.totalTokens,
    compactions: m.compactions.length,
    first: inContext[0]?.kind ?? "",
  };
});
