/**
 * Branch comparison: the fork point's prompt and time, then the two sides in columns, each titled by its branch
 * (figures, files changed and read with the files both touched marked, the compact turns), and a diff button for each
 * file both sides changed. Session text is set as text, and answers as Markdown through the transcript's inert
 * renderer (`markdown.ts`), never as markup.
 */
import * as l10n from "@vscode/l10n";
import { formatDateTime, formatDuration } from "../protocol/format.js";
import type { CompareFile, CompareModel, CompareSide, CompareTurn } from "../protocol/views.js";
import { action, boot, cost, h, mount, section, send, tokens } from "./common.js";
import { markdown } from "./markdown.js";

const openLink = (url: string) => send({ type: "openLink", url });

/**
 * An answer's headings under the page's own (a side's title is an h2): "#" becomes h4, and so on down to h6. Lines in
 * a fenced code block stay as written (a shell comment is no heading).
 */
function demoteHeadings(text: string): string {
  let fence: string | null = null;
  return text
    .split("\n")
    .map((line) => {
      const mark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (mark && (fence === null || (mark[0] === fence[0] && mark.length >= fence.length))) {
        fence = fence === null ? mark : null;
        return line;
      }
      if (fence !== null) return line;
      return line.replace(
        /^( {0,3})(#{1,6})(?=[ \t]|$)/,
        (_m, indent: string, hashes: string) => `${indent}${"#".repeat(Math.min(6, hashes.length + 3))}`,
      );
    })
    .join("\n");
}

/** A side's heading: its branch at the fork point ("Branch 2/3: …", as the tree and the switcher name it), else the
 * session's title. */
function sideHeading(s: CompareSide): string {
  return s.branch ? l10n.t("Branch {0}/{1}: {2}", s.branch.number, s.branch.of, s.branch.name) : s.title;
}

const ROLE_TEXT: Record<CompareSide["role"], () => string> = {
  active: () => l10n.t("active branch"),
  branch: () => l10n.t("other branch"),
  fork: () => l10n.t("fork"),
  parent: () => l10n.t("parent"),
};

const TURN_TEXT: Record<CompareTurn["kind"], () => string> = {
  user: () => l10n.t("prompt"),
  assistant: () => l10n.t("answer"),
  tool: () => l10n.t("tool"),
};

function fileList(title: string, files: CompareFile[]): HTMLElement {
  return h(
    "div",
    { class: "files" },
    h("h3", {}, `${title} (${files.length})`),
    files.length
      ? h(
          "ul",
          {},
          ...files.map((f) =>
            h(
              "li",
              { class: f.shared ? "shared" : undefined },
              h("code", { title: f.path }, f.label),
              f.shared
                ? h("span", { class: "badge", title: l10n.t("The other side touched it too") }, l10n.t("both"))
                : null,
            ),
          ),
        )
      : h("p", { class: "muted" }, l10n.t("none")),
  );
}

function sideColumn(s: CompareSide, label: string): HTMLElement {
  return h(
    "section",
    { class: "side", "aria-label": label },
    h("h2", {}, `${label} · ${sideHeading(s)}`),
    s.firstPrompt && s.firstPrompt !== s.branch?.name
      ? h("p", { class: "first-prompt" }, l10n.t("First prompt: {0}", s.firstPrompt))
      : null,
    h(
      "p",
      { class: "muted" },
      [
        ROLE_TEXT[s.role](),
        s.branch ? s.title : "",
        s.leafLabel ? l10n.t("ends at “{0}”", s.leafLabel) : l10n.t("(empty)"),
      ]
        .filter(Boolean)
        .join(" · ") + " ",
      s.leafId ? action(l10n.t("Reveal"), { type: "revealEntry", file: s.file, entryId: s.leafId }) : null,
    ),
    h(
      "dl",
      { class: "kv" },
      h("dt", {}, l10n.t("Entries after the fork point")),
      h("dd", {}, String(s.entries)),
      h("dt", {}, l10n.t("Cost")),
      h("dd", {}, cost(s.cost)),
      h("dt", {}, l10n.t("Tokens in / out")),
      h("dd", {}, `${tokens(s.tokens.input)} / ${tokens(s.tokens.output)}`),
      h("dt", {}, l10n.t("Cache read / write")),
      h("dd", {}, `${tokens(s.tokens.cacheRead)} / ${tokens(s.tokens.cacheWrite)}`),
      h("dt", {}, l10n.t("Duration")),
      h("dd", {}, s.durationMs === null ? "-" : formatDuration(s.durationMs)),
    ),
    fileList(l10n.t("Files modified"), s.filesModified),
    fileList(l10n.t("Files read"), s.filesRead),
    s.moreFiles ? h("p", { class: "muted" }, l10n.t("{0} more files", s.moreFiles)) : null,
    h("h3", {}, l10n.t("Turns")),
    s.turns.length
      ? h(
          "ol",
          { class: "turns" },
          ...s.turns.map((t) =>
            h(
              "li",
              { class: `turn ${t.kind}` },
              h("span", { class: "kind" }, TURN_TEXT[t.kind]()),
              t.kind === "assistant"
                ? h("div", { class: "text" }, markdown(demoteHeadings(t.text), openLink))
                : h("span", { class: "text" }, t.text),
            ),
          ),
        )
      : h("p", { class: "muted" }, l10n.t("Nothing after the fork point")),
    s.moreTurns ? h("p", { class: "muted" }, l10n.t("{0} more turns", s.moreTurns)) : null,
  );
}

boot<CompareModel>((m) => {
  const [a, b] = m.sides;
  mount(
    document.getElementById("root")!,
    h(
      "header",
      {},
      h("h1", {}, l10n.t("Compare branches")),
      h("p", { class: "muted" }, forkPointText(m)),
      m.forkPrompt ? h("blockquote", { class: "fork-prompt" }, m.forkPrompt) : null,
    ),
    m.bothEdited.length
      ? section(
          l10n.t("Changed on both sides"),
          h(
            "ul",
            {},
            ...m.bothEdited.map((f) => {
              const button = action(l10n.t("Diff final texts"), { type: "diffFinalTexts", path: f.path });
              if (!f.diffable) {
                button.disabled = true;
                button.title = l10n.t(
                  "The final text is known only where a side wrote the file whole (then edits apply)",
                );
              }
              return h("li", {}, h("code", {}, f.path), " ", button);
            }),
          ),
        )
      : null,
    h("div", { class: "columns compare" }, sideColumn(a, "A"), sideColumn(b, "B")),
  );
  return {
    forkPoint: m.forkPointId ?? "",
    aHeading: document.querySelectorAll(".side h2")[0]?.textContent ?? "",
    bHeading: document.querySelectorAll(".side h2")[1]?.textContent ?? "",
    aEntries: a.entries,
    bEntries: b.entries,
    aTurns: a.turns.length,
    bTurns: b.turns.length,
    bothEdited: m.bothEdited.length,
    diffable: m.bothEdited.filter((f) => f.diffable).length,
    sharedFiles: [...a.filesModified, ...a.filesRead].filter((f) => f.shared).length,
  };
});

/** The fork point named by its time and its prompt (quoted below the line), never by its id. */
function forkPointText(m: CompareModel): string {
  if (!m.forkPointId) return l10n.t("The two paths share no entry: each side is its whole path");
  const when = m.forkTime === null ? null : formatDateTime(m.forkTime);
  if (m.forkPrompt)
    return when ? l10n.t("Fork point: {0}, after this prompt:", when) : l10n.t("Fork point: after this prompt:");
  return when ? l10n.t("Fork point: {0}, before any prompt", when) : l10n.t("Fork point: before any prompt");
}
