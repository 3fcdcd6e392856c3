/** Checkpoint inspector: one compaction entry, its readable summary (sanitized Markdown) and its server checkpoint. */
import type { CheckpointModel } from "../protocol/views.js";
import { formatDateTime, truncate } from "../protocol/format.js";
import { action, boot, cost, h, mount, section, table, tokens } from "./common.js";
import * as l10n from "@vscode/l10n";
import { markdown } from "./markdown.js";
import { summaryMarkdown } from "../protocol/markdown.js";

function renderSummary(text: string): HTMLElement {
  if (!text.trim())
    return h("div", { class: "markdown", id: "summary" }, h("p", { class: "muted" }, l10n.t("(no readable summary)")));
  // Sanitized Markdown built as DOM (./markdown.ts); its http(s) links are inert here (the URL is their tooltip).
  const box = markdown(summaryMarkdown(text), () => undefined);
  box.id = "summary";
  return box;
}

const kv = (rows: [string, string | Node][]) =>
  h("dl", { class: "kv" }, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
const yesNo = (ok: boolean, yes: string, no: string) =>
  h("span", { class: ok ? "ok" : "bad" }, ok ? `✓ ${yes}` : `✗ ${no}`);

/** Where the compaction stands: the active checkpoint, superseded, on the active branch or not. */
function statusText(m: CheckpointModel): string {
  return m.activeCheckpoint
    ? l10n.t("The active server checkpoint of the current branch.")
    : m.supersededBy
      ? l10n.t("Superseded by a later compaction on its branch.")
      : m.onActivePath
        ? l10n.t("The latest compaction on the active branch.")
        : l10n.t("Not on the active branch.");
}

/** The title, the status line and whether the fork copied it. */
function headerOf(m: CheckpointModel): HTMLElement {
  return h(
    "header",
    {},
    // Named by what a reader knows it by (the session and when), the entry's id in the tooltip.
    h(
      "h1",
      { title: l10n.t("Entry {0}", m.entryId) },
      m.sessionTitle
        ? l10n.t("Compaction in “{0}”", truncate(m.sessionTitle, 80))
        : l10n.t("Compaction {0}", m.entryId),
    ),
    h(
      "p",
      { class: "muted", id: "status" },
      `${statusText(m)} ${l10n.t("Line {0}", m.line)}` +
        (m.timestamp ? ` · ${formatDateTime(m.timestamp)}` : "") +
        (m.method ? ` · ${m.method}` : "") +
        (m.fromExtension ? ` · ${l10n.t("written by an extension")}` : "") +
        " ",
      m.supersededBy
        ? action(
            l10n.t("Inspect the later one"),
            { type: "inspectCheckpoint", file: m.file, entryId: m.supersededBy },
            l10n.t("Open the compaction that supersedes this one"),
          )
        : null,
    ),
    m.copiedFromParent
      ? h(
          "p",
          { class: "muted", id: "copied" },
          l10n.t("Copied from the parent session when this fork was made: written, and paid for, in the parent."),
        )
      : null,
  );
}

/** Tokens before and after, what is kept and replaced, and the context after it. */
function tokensSection(m: CheckpointModel): HTMLElement {
  return section(
    l10n.t("Tokens and ranges"),
    kv([
      [
        l10n.t("Tokens before (recorded by the agent)"),
        m.tokensBefore === null ? l10n.t("(not recorded)") : `${tokens(m.tokensBefore)} (${m.tokensBefore})`,
      ],
      [
        l10n.t("Tokens after (recorded by the agent)"),
        m.tokensAfter === null ? l10n.t("(not recorded)") : `${tokens(m.tokensAfter)} (${m.tokensAfter})`,
      ],
      [
        l10n.t("Kept"),
        m.kept
          ? h(
              "span",
              {},
              action(
                m.kept.label,
                { type: "revealEntry", file: m.file, entryId: m.kept.id },
                l10n.t("Reveal in the Sessions tree"),
              ),
              ` · ${
                m.kept.entries === 1
                  ? l10n.t("1 entry up to the compaction")
                  : l10n.t("{0} entries up to the compaction", m.kept.entries)
              }`,
            )
          : l10n.t("nothing (the context restarts from the summary)"),
      ],
      [
        l10n.t("Replaced"),
        m.replaced.firstId
          ? h(
              "span",
              {},
              action(
                m.replaced.messages === 1 ? l10n.t("1 message") : l10n.t("{0} messages", m.replaced.messages),
                { type: "revealEntry", file: m.file, entryId: m.replaced.firstId },
                l10n.t("Reveal the first replaced message"),
              ),
              m.replaced.throughLabel ? ` ${l10n.t("through “{0}”", m.replaced.throughLabel)}` : "",
            )
          : l10n.t("nothing"),
      ],
      [
        l10n.t("Context here"),
        action(l10n.t("Show the effective context after this compaction"), {
          type: "showContext",
          file: m.file,
          entryId: m.entryId,
        }),
      ],
    ]),
  );
}

/** The readable summary and the harness's own summary call. */
function summarySection(m: CheckpointModel): HTMLElement {
  return section(
    l10n.t("Readable summary"),
    renderSummary(m.summary),
    m.summaryUsage
      ? h(
          "p",
          { class: "muted", id: "summary-usage" },
          l10n.t(
            "Written by the harness's own summary call: {0} in · {1} out · {2}",
            tokens(m.summaryUsage.input),
            tokens(m.summaryUsage.output),
            cost(m.summaryUsage.cost),
          ) +
            " " +
            l10n.t("(counted apart from any server compaction)."),
        )
      : null,
  );
}

/** pi's file lists: read and modified. */
function filesSection(m: CheckpointModel): HTMLElement {
  return section(
    l10n.t("Files"),
    h(
      "div",
      { class: "columns" },
      h(
        "div",
        {},
        h("h3", {}, l10n.t("Read ({0})", m.readFiles.length)),
        h("ul", {}, ...m.readFiles.map((f) => h("li", {}, h("code", {}, f)))),
      ),
      h(
        "div",
        {},
        h("h3", {}, l10n.t("Modified ({0})", m.modifiedFiles.length)),
        h("ul", {}, ...m.modifiedFiles.map((f) => h("li", {}, h("code", {}, f)))),
      ),
    ),
  );
}

/** Oh My Pi's fields, when the session is OMP's. */
function ompSection(m: CheckpointModel, omp: NonNullable<CheckpointModel["omp"]>): HTMLElement {
  return section(
    l10n.t("Oh My Pi"),
    kv([
      [l10n.t("Method"), omp.method ?? l10n.t("(none)")],
      [l10n.t("Short summary"), omp.shortSummary ?? l10n.t("(none)")],
      [l10n.t("Preserved data"), omp.preserveData ? l10n.t("present") : l10n.t("absent")],
      [l10n.t("Written by an extension"), m.fromExtension ? l10n.t("yes") : l10n.t("no")],
    ]),
  );
}

/** Blackmagic's server checkpoint: validity, identity, artifact integrity, usage, lineage, replay. */
function serverSection(m: CheckpointModel, b: NonNullable<CheckpointModel["blackmagic"]>): HTMLElement {
  return section(
    l10n.t("Server checkpoint (Blackmagic details)"),
    kv([
      [
        l10n.t("Replays"),
        b.invalidReason === null ? yesNo(true, l10n.t("valid checkpoint"), "") : yesNo(false, "", b.invalidReason),
      ],
      [l10n.t("Made by"), m.method ?? l10n.t("(unknown)")],
      [l10n.t("Format version · state"), `${JSON.stringify(b.schemaVersion)} · ${b.state ?? l10n.t("(none)")}`],
      ...Object.entries(b.identity).map(([k, v]) => [capitalized(keyWords(k)), v] as [string, string]),
      ...(b.checkpoint
        ? ([
            [
              l10n.t("Artifact"),
              l10n.t(
                "{0} items · {1} bytes · retention {2}",
                b.checkpoint.items,
                b.checkpoint.bytes,
                b.checkpoint.retention ?? l10n.t("(none)"),
              ),
            ],
            [l10n.t("Items by type"), m.itemTypes.map((t) => `${t.type} ×${t.count}`).join(" · ") || l10n.t("(none)")],
            [
              l10n.t("Content hash (SHA-256)"),
              h(
                "span",
                {},
                yesNo(b.checkpoint.hashOk, l10n.t("matches"), l10n.t("differs")),
                " ",
                h("code", {}, b.checkpoint.computedHash),
              ),
            ],
            [
              l10n.t("Content length"),
              h(
                "span",
                {},
                yesNo(b.checkpoint.lengthOk, l10n.t("matches"), l10n.t("differs")),
                " ",
                l10n.t(
                  "computed {0}, stored {1}",
                  b.checkpoint.computedLength,
                  b.checkpoint.storedLength ?? l10n.t("(none)"),
                ),
              ),
            ],
          ] as [string, string | Node][])
        : [[l10n.t("Artifact"), l10n.t("(none)")] as [string, string]]),
      [
        l10n.t("Server compaction usage"),
        b.usage
          ? Object.entries(b.usage)
              .map(([k, v]) => `${keyWords(k)} ${v}`)
              .join(" · ") + ` ${l10n.t("(the provider gives no price)")}`
          : l10n.t("(none)"),
      ],
      [l10n.t("Server latency"), b.latencyMs === null ? l10n.t("(none)") : `${b.latencyMs} ms`],
      [
        l10n.t("Lineage"),
        b.lineage
          ? Object.entries(b.lineage)
              .map(([k, v]) => `${keyWords(k)} ${v}`)
              .join(" · ")
          : l10n.t("(none)"),
      ],
      [
        l10n.t("Replay"),
        b.replay
          ? (b.replay.namespace ?? l10n.t("(no namespace)")) +
            (b.replay.scope ? ` · ${l10n.t("scope {0}", b.replay.scope)}` : "") +
            ` · ${l10n.t("{0} item hashes", b.replay.hashes)}` +
            (b.replay.hashesWellFormed ? "" : ` ${l10n.t("(malformed)")}`)
          : l10n.t("(none)"),
      ],
      ...(b.fallback
        ? ([
            [
              l10n.t("Local fallback"),
              [
                b.fallback.method,
                b.fallback.failureClass && `(${l10n.t("failure class {0}", b.fallback.failureClass)})`,
              ]
                .filter(Boolean)
                .join(" "),
            ],
          ] as [string, string][])
        : []),
    ]),
    b.checkpoint?.encrypted.length
      ? table(
          l10n.t("Encrypted content (never shown in full)"),
          [
            { title: l10n.t("Length"), value: (e) => e.length, numeric: true },
            { title: l10n.t("Hash (SHA-256)"), value: (e) => h("code", {}, e.sha256) },
            { title: l10n.t("Prefix"), value: (e) => h("code", {}, `${e.prefix}…`) },
          ],
          b.checkpoint.encrypted,
        )
      : null,
  );
}

/** A record's key as words: `input_tokens`, `responseId` → "input tokens", "response id" (Blackmagic's keys vary by
 * provider, so they are spelled out rather than translated one by one). */
function keyWords(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_.-]+/g, " ")
    .toLowerCase()
    .trim();
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

boot<CheckpointModel>((m) => {
  const root = document.getElementById("root")!;
  const b = m.blackmagic;
  mount(
    root,
    headerOf(m),
    tokensSection(m),
    summarySection(m),
    filesSection(m),
    m.omp ? ompSection(m, m.omp) : null,
    b ? serverSection(m, b) : null,
  );
  return {
    entryId: m.entryId,
    active: m.activeCheckpoint,
    superseded: m.supersededBy ?? "",
    blackmagic: b !== null,
    valid: b?.invalidReason === null,
    tokensBefore: m.tokensBefore ?? -1,
    method: m.method ?? "",
    copied: m.copiedFromParent,
    cost: cost(0),
    heading: document.querySelector("h1")?.textContent ?? "",
    summaryText: document.getElementById("summary")?.textContent?.slice(0, 4000) ?? "",
    fields: [...document.querySelectorAll("dt")].map((d) => d.textContent ?? "").join("|"),
  };
});
