/**
 * One transcript row as DOM: messages as sanitized Markdown, thinking and tool output collapsed, edits as line diffs,
 * bash runs, images (asked of the host by number), compaction and branch-summary cards, and quiet separators. Every
 * session text goes in as text; the only interactive parts are buttons and summaries (reachable by keyboard).
 */
import * as l10n from "@vscode/l10n";
import { diffLines } from "diff";
import { formatCost, formatDateTime, formatDuration, formatTokens } from "../protocol/format.js";
import type {
  AssistantBlock,
  FromTranscript,
  ToolResultItem,
  TranscriptImage,
  TranscriptItem,
  TranscriptRow,
} from "../protocol/transcript.js";
import { type Child, h } from "./dom.js";
import { codeBlock, languageOfPath, markdown } from "./markdown.js";
import { summaryMarkdown } from "../protocol/markdown.js";
import { nestedList } from "./transcriptNested.js";

export interface RowContext {
  send(message: FromTranscript): void;
  /** An image's data: URI once the host sent it (undefined: not here yet, and asked for once; null: not shown). */
  image(row: number, ref: number): string | null | undefined;
  /** Details elements the user opened, by key, so a row rebuilt after scrolling keeps them open. */
  open: Set<string>;
  /** Outputs the user asked to see whole. */
  shownAll: Set<string>;
  rerender(row: number): void;
  /** Rows on the branch (for the feed's aria-setsize). */
  count(): number;
}

/** Lines of tool output shown before "show all". */
const OUTPUT_LINES = 30;

function button(label: string, onClick: () => void, attrs: Record<string, string | undefined> = {}): HTMLElement {
  const b = h("button", { type: "button", class: "link", ...attrs }, label);
  b.addEventListener("click", onClick);
  return b;
}

/**
 * A `<details>` whose open state survives the row being rebuilt. Its content is built when it is first opened: most
 * are never opened, and building (and highlighting) them all would cost every scroll.
 */
function details(ctx: RowContext, key: string, summary: Child, content: () => Child[]): HTMLElement {
  const d = h("details", { open: ctx.open.has(key) }, h("summary", {}, summary));
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    d.append(
      ...content()
        .filter((c): c is Node | string => c !== null && c !== undefined && c !== false)
        .map((c) => (typeof c === "number" ? String(c) : c)),
    );
  };
  if (d.open) build();
  d.addEventListener("toggle", () => {
    if (d.open) {
      ctx.open.add(key);
      build();
    } else ctx.open.delete(key);
  });
  return d;
}

/** Tool output in monospace: its first lines, and "Show all N lines" for the rest of what the row carries. */
function output(ctx: RowContext, key: string, text: string): HTMLElement {
  const lines = text.split("\n");
  if (ctx.shownAll.has(key) || lines.length <= OUTPUT_LINES) return h("pre", { class: "output" }, text);
  const box = h("div", {}, h("pre", { class: "output" }, lines.slice(0, OUTPUT_LINES).join("\n")));
  box.append(
    button(l10n.t("Show all {0} lines", lines.length), () => {
      ctx.shownAll.add(key);
      box.replaceWith(output(ctx, key, text));
    }),
  );
  return box;
}

/** An image, or its placeholder until the host sends it (then replaced in place: `imageElement`). */
export function imageElement(src: string | null | undefined, i: TranscriptImage, row: number): HTMLElement {
  if (src) return h("img", { src, alt: l10n.t("image {0}", i.mimeType) });
  const what = l10n.t("image {0}", i.mimeType);
  return h(
    "p",
    { class: "muted", "data-image": `${row}:${i.ref}` },
    src === undefined ? `[${what}…]` : `[${what}${i.blob ? ` · ${l10n.t("blob sha256:{0} not found", i.blob)}` : ""}]`,
  );
}

function images(ctx: RowContext, row: number, list: TranscriptImage[]): HTMLElement | null {
  if (!list.length) return null;
  return h(
    "div",
    { class: "images" },
    ...list.map((i) => imageElement(i.ref === undefined ? null : ctx.image(row, i.ref), i, row)),
  );
}

function result(ctx: RowContext, row: TranscriptRow & { kind: "item" }, r: ToolResultItem): HTMLElement {
  const key = `${r.entryId}:result`;
  const lines = r.text ? r.text.split("\n").length : 0;
  const label =
    lines === 1
      ? r.isError
        ? l10n.t("Error (1 line)")
        : l10n.t("Result (1 line)")
      : r.isError
        ? l10n.t("Error ({0} lines)", lines)
        : l10n.t("Result ({0} lines)", lines);
  const box = details(ctx, key, h("span", { class: r.isError ? "error" : "muted" }, label), () => [
    output(ctx, key, r.text),
    images(ctx, row.index, r.images),
  ]);
  const marks = contextEditMark(ctx, r);
  return r.nested?.length || marks.length
    ? h("div", {}, ...marks, r.nested?.length ? nestedList(r.nested) : null, box)
    : box;
}

/** Texts longer than this are not diffed in the page (Open as Diff shows them in VS Code's diff editor). */
const DIFF_MAX = 64 * 1024;

/** An edit as a line diff: removed lines, added lines, and unchanged lines around them. */
function diffView(oldText: string, newText: string): HTMLElement {
  if (oldText.length + newText.length > DIFF_MAX)
    return h("p", { class: "muted" }, l10n.t("This edit is too long to show here: open it as a diff."));
  const pre = h("pre", { class: "diff", role: "group", "aria-label": l10n.t("Edit diff") });
  for (const part of diffLines(oldText, newText)) {
    const sign = part.added ? "+" : part.removed ? "-" : " ";
    const text = part.value.endsWith("\n") ? part.value.slice(0, -1) : part.value;
    const lines = text.split("\n").map((l) => `${sign} ${l}`);
    pre.append(h("span", { class: part.added ? "add" : part.removed ? "del" : "same" }, `${lines.join("\n")}\n`));
  }
  return pre;
}

function toolCall(
  ctx: RowContext,
  row: TranscriptRow & { kind: "item" },
  b: AssistantBlock & { type: "toolCall" },
  n: number,
  resultOf: Map<string, ToolResultItem[]>,
  shown: Set<ToolResultItem>,
): HTMLElement {
  const item = row.item;
  const openDiff = (edit: number | null) =>
    button(l10n.t("Open as Diff"), () => ctx.send({ type: "openDiff", entryId: item.entryId, call: n, edit }));
  const parts: Child[] = [
    h(
      "p",
      { class: "tool-head" },
      h("span", { class: "tool-name" }, b.name),
      " ",
      h("span", { class: "muted" }, b.summary),
    ),
  ];
  if (b.edits)
    b.edits.forEach((e, i) => parts.push(h("div", { class: "edit" }, diffView(e.oldText, e.newText), openDiff(i))));
  else if (b.written !== undefined)
    parts.push(
      details(
        ctx,
        `${item.entryId}:${n}:write`,
        l10n.t("Written content ({0} lines)", b.written.split("\n").length),
        () => [codeBlock(b.written!, b.path ? languageOfPath(b.path) : null)],
      ),
      openDiff(null),
    );
  else if (b.moreArguments || !b.summary)
    parts.push(details(ctx, `${item.entryId}:${n}:args`, l10n.t("Arguments"), () => [codeBlock(b.arguments, "json")]));
  for (const r of (b.id ? resultOf.get(b.id) : undefined) ?? []) {
    parts.push(result(ctx, row, r));
    shown.add(r);
  }
  if (b.id) resultOf.delete(b.id);
  return h("div", { class: "tool" }, ...parts);
}

function footer(row: TranscriptRow & { kind: "item" }, item: TranscriptItem & { kind: "assistant" }): HTMLElement {
  const parts: string[] = [];
  if (item.model) parts.push(item.model);
  const u = item.usage;
  if (u) {
    parts.push(l10n.t("{0} in", formatTokens(u.input)), l10n.t("{0} out", formatTokens(u.output)));
    if (u.cacheRead || u.cacheWrite)
      parts.push(l10n.t("cache {0} read / {1} write", formatTokens(u.cacheRead), formatTokens(u.cacheWrite)));
    parts.push(
      u.billed
        ? l10n.t("{0} billed (estimate {1})", formatCost(u.cost), formatCost(u.billed.estimate))
        : formatCost(u.cost),
    );
  }
  const reply = item.reply;
  if (reply?.thinkingLevel)
    parts.push(
      reply.providerThinkingLevel
        ? l10n.t("thinking {0} (provider: {1})", reply.thinkingLevel, reply.providerThinkingLevel)
        : l10n.t("thinking {0}", reply.thinkingLevel),
    );
  // The time the reply took: pi 1.6 records it; else since the message before it (none when the clock did not move).
  if (reply && reply.durationMs !== null) parts.push(formatDuration(reply.durationMs));
  else if (row.sincePrevious) parts.push(`+${formatDuration(row.sincePrevious)}`);
  if (reply?.endTurn) parts.push(l10n.t("end of turn"));
  return h("p", { class: "footer muted" }, parts.join(" · "));
}

const onLink = (ctx: RowContext) => (url: string) => ctx.send({ type: "openLink", url });

function assistant(
  ctx: RowContext,
  row: TranscriptRow & { kind: "item" },
  item: TranscriptItem & { kind: "assistant" },
) {
  // Results by call id, in order (a call id may be answered more than once); each shows under its call once.
  const resultOf = new Map<string, ToolResultItem[]>();
  for (const r of row.results) if (r.toolCallId) resultOf.set(r.toolCallId, [...(resultOf.get(r.toolCallId) ?? []), r]);
  const shown = new Set<ToolResultItem>();
  let calls = 0;
  const parts = item.blocks.map((b, i) => {
    if (b.type === "text") return markdown(b.text, onLink(ctx));
    if (b.type === "thinking")
      return details(ctx, `${item.entryId}:${i}:thinking`, l10n.t("Thinking ({0} characters)", b.text.length), () => [
        h("pre", { class: "thinking" }, b.text),
      ]);
    return toolCall(ctx, row, b, calls++, resultOf, shown);
  });
  // Results whose call is not in this message (or that carry no call id) still show.
  const rest = row.results.filter((r) => !shown.has(r));
  const error =
    item.stopReason === "error" || item.stopReason === "aborted"
      ? h("p", { class: "error", role: "alert" }, item.error ?? item.stopReason)
      : null;
  return [...parts, ...rest.map((r) => result(ctx, row, r)), error, footer(row, item)];
}

function heading(item: TranscriptItem): string {
  switch (item.kind) {
    case "user":
      return l10n.t("User");
    case "assistant":
      return l10n.t("Assistant");
    case "toolResult":
      return l10n.t("Tool result: {0}", item.toolName);
    case "bash":
      return l10n.t("Bash");
    case "compaction":
      return l10n.t("Compaction");
    case "branchSummary":
      return l10n.t("Branch summary");
    case "custom":
      return item.customType;
    case "system":
      return l10n.t("System prompt");
    case "note":
      return "";
  }
}

/** pi 1.6's system message: what it changed on one line, its sections and tools one click away. */
function systemCard(ctx: RowContext, item: TranscriptItem & { kind: "system" }): Child[] {
  const tools = [...item.toolsAdded.map((n) => `+${n}`), ...item.toolsRemoved.map((n) => `−${n}`)];
  return [
    h("p", { class: "muted" }, item.summary),
    details(ctx, `${item.entryId}:system`, l10n.t("Sections ({0})", item.sections.length), () => [
      ...item.sections.flatMap((sec) => [
        h("p", { class: "muted" }, sec.text === null ? l10n.t("{0}: removed", sec.name) : sec.name),
        sec.text === null ? null : h("pre", { class: "output" }, sec.text),
      ]),
      tools.length ? h("p", { class: "muted" }, l10n.t("Tools: {0}", tools.join(" "))) : null,
    ]),
  ];
}

/** What a pi 1.6 context edit did to this entry: a badge, and what the model saw instead one click away. */
function contextEditMark(ctx: RowContext, item: TranscriptItem): Child[] {
  const edit = item.contextEdit;
  if (!edit) return [];
  if (edit.state === "omitted")
    return [
      h(
        "p",
        { class: "muted context-edit", title: edit.id },
        l10n.t("Left out of the model's context by a context edit."),
      ),
    ];
  const box = details(
    ctx,
    `${item.entryId}:edit`,
    l10n.t("Replaced in the model's context: what it saw instead"),
    () => [h("pre", { class: "output" }, edit.text ?? "")],
  );
  box.classList.add("context-edit");
  return [box];
}

function body(ctx: RowContext, row: TranscriptRow & { kind: "item" }): Child[] {
  const item = row.item;
  switch (item.kind) {
    case "user":
      return [markdown(item.text, onLink(ctx)), images(ctx, row.index, item.images)];
    case "assistant":
      return assistant(ctx, row, item);
    case "toolResult":
      return [result(ctx, row, item)];
    case "bash":
      return [
        h("pre", { class: "command" }, `$ ${item.command}`),
        output(ctx, `${item.entryId}:bash`, item.output),
        h("p", { class: item.exitCode ? "error" : "muted" }, l10n.t("exit code {0}", item.exitCode ?? "?")),
      ];
    case "compaction": {
      const facts = [
        item.tokensBefore === null ? null : l10n.t("{0} tokens before", formatTokens(item.tokensBefore)),
        item.messagesReplaced === 1
          ? l10n.t("1 message summarized")
          : l10n.t("{0} messages summarized", item.messagesReplaced),
      ].filter(Boolean);
      return [
        h("p", { class: "muted" }, facts.join(" · ")),
        row.expanded === undefined
          ? null
          : button(
              row.expanded ? l10n.t("Hide the replaced entries") : l10n.t("Show the replaced entries"),
              () => ctx.send({ type: "toggleCompaction", entryId: item.entryId }),
              { "aria-expanded": String(row.expanded) },
            ),
        markdown(summaryMarkdown(item.summary), onLink(ctx)),
      ];
    }
    case "branchSummary":
      return [
        h(
          "p",
          { class: "muted" },
          l10n.t("Summary of the branch that ended at {0}", row.fromLabel ?? item.fromId ?? "?"),
        ),
        markdown(summaryMarkdown(item.summary), onLink(ctx)),
      ];
    case "custom":
      return [h("pre", { class: "custom" }, item.text)];
    case "system":
      return systemCard(ctx, item);
    case "note":
      return [item.text];
  }
}

/** The DOM of one row. */
export function renderRow(ctx: RowContext, row: TranscriptRow): HTMLElement {
  if (row.kind === "inherited")
    return h(
      "article",
      { class: "row inherited-group", "aria-label": l10n.t("Inherited entries") },
      h("p", {}, l10n.t("{0} entries inherited from {1}", row.entries, row.parentTitle)),
      button(l10n.t("Show them"), () => ctx.send({ type: "toggleInherited" })),
      " · ",
      button(l10n.t("Open the parent at the fork point"), () => ctx.send({ type: "openParent" })),
    );
  const item = row.item;
  const when = item.timestamp ? formatDateTime(item.timestamp) : "";
  const title = heading(item);
  const kind = item.kind === "assistant" && item.error ? "assistant error" : item.kind;
  const classes = ["row", kind, row.dimmed ? "dimmed" : "", item.inherited ? "inherited" : ""].filter(Boolean);
  const switcher = row.branch
    ? button(
        l10n.t("Branch {0}/{1} ▾", row.branch.position, row.branch.count),
        () => ctx.send({ type: "chooseBranch", entryId: item.entryId }),
        { class: "link branch", "aria-haspopup": "listbox" },
      )
    : null;
  const head =
    item.kind === "note"
      ? switcher
      : h(
          "header",
          {},
          h("span", { class: "who" }, title),
          item.inherited ? h("span", { class: "badge" }, l10n.t("inherited")) : null,
          row.dimmed ? h("span", { class: "badge" }, l10n.t("replaced by a compaction")) : null,
          item.label ? h("span", { class: "badge label", title: l10n.t("Label") }, `🏷 ${item.label}`) : null,
          switcher,
          h("span", { class: "when muted" }, when),
          button("⋯", () => ctx.send({ type: "entryActions", entryId: item.entryId }), {
            class: "link raw",
            title: l10n.t("Entry actions: copy id, label, reveal, compare, export, open the raw line"),
            "aria-label": l10n.t("Entry actions"),
            "aria-haspopup": "menu",
          }),
        );
  const om = row.omitted;
  const cut = row.clipped
    ? h(
        "p",
        { class: "cut muted" },
        om
          ? l10n.t(
              "Not shown: {0} images, {1} edits, {2} parts of this message (the session file has them).",
              om.images,
              om.edits,
              om.blocks,
            )
          : l10n.t("This entry is cut short here."),
        " ",
        ctx.shownAll.has(`row:${row.index}`)
          ? null
          : button(l10n.t("Show all of it"), () => {
              ctx.shownAll.add(`row:${row.index}`);
              ctx.send({ type: "showAll", seq: 0, index: row.index });
            }),
      )
    : null;
  return h(
    "article",
    {
      class: classes.join(" "),
      "data-entry": item.entryId,
      "aria-label": `${title} ${when}`.trim(),
      "aria-posinset": row.index + 1,
      "aria-setsize": ctx.count(),
      tabindex: -1,
    },
    head,
    // A tool result's mark is drawn with the result (`result`), in its own row or its call's.
    ...(item.kind === "toolResult" ? [] : contextEditMark(ctx, item)),
    ...body(ctx, row),
    cut,
  );
}
