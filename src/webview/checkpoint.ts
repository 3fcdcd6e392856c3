/** Checkpoint inspector: one compaction entry, its readable summary (sanitized Markdown) and its server checkpoint. */
import MarkdownIt from "markdown-it";
import type { CheckpointModel } from "../protocol/views.js";
import { action, boot, cost, h, mount, section, table, tokens } from "./common.js";

// Raw HTML in the summary is escaped, and only http(s) links survive (rendered inert: clicks do not navigate).
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.validateLink = (url: string) => /^https?:\/\//i.test(url);

function renderSummary(text: string): HTMLElement {
  const box = h("div", { class: "markdown", id: "summary" });
  if (!text.trim()) {
    box.append(h("p", { class: "muted" }, "(no readable summary)"));
    return box;
  }
  // markdown-it output with html disabled contains only the tags it generates; parse it into an inert template.
  const tpl = document.createElement("template");
  tpl.innerHTML = md.render(text);
  for (const a of tpl.content.querySelectorAll("a")) {
    a.setAttribute("title", a.getAttribute("href") ?? "");
    a.removeAttribute("href");
  }
  for (const img of tpl.content.querySelectorAll("img"))
    img.replaceWith(document.createTextNode(`[image: ${img.getAttribute("alt") ?? ""}]`));
  box.append(tpl.content);
  return box;
}

const kv = (rows: [string, string | Node][]) =>
  h("dl", { class: "kv" }, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
const yesNo = (ok: boolean, yes: string, no: string) =>
  h("span", { class: ok ? "ok" : "bad" }, ok ? `✓ ${yes}` : `✗ ${no}`);

boot<CheckpointModel>((m) => {
  const root = document.getElementById("root")!;
  const b = m.blackmagic;
  const status = m.activeCheckpoint
    ? "The active server checkpoint of the current branch."
    : m.supersededBy
      ? `Superseded by the later compaction ${m.supersededBy}.`
      : m.onActivePath
        ? "The latest compaction on the active branch."
        : "Not on the active branch.";
  mount(
    root,
    h(
      "header",
      {},
      h("h1", {}, `Compaction ${m.entryId}`),
      h(
        "p",
        { class: "muted", id: "status" },
        `${status} Line ${m.line}` +
          (m.timestamp ? ` · ${new Date(m.timestamp).toLocaleString()}` : "") +
          (m.method ? ` · ${m.method}` : "") +
          (m.fromExtension ? " · written by an extension" : ""),
      ),
      m.copiedFromParent
        ? h(
            "p",
            { class: "muted", id: "copied" },
            "Copied from the parent session when this fork was made: written, and paid for, in the parent.",
          )
        : null,
    ),
    section(
      "Tokens and ranges",
      kv([
        ["tokensBefore", m.tokensBefore === null ? "(not recorded)" : `${tokens(m.tokensBefore)} (${m.tokensBefore})`],
        ["tokensAfter", m.tokensAfter === null ? "(not recorded)" : `${tokens(m.tokensAfter)} (${m.tokensAfter})`],
        [
          "Kept",
          m.kept
            ? h(
                "span",
                {},
                action(
                  m.kept.label,
                  { type: "revealEntry", file: m.file, entryId: m.kept.id },
                  "Reveal in the Sessions tree",
                ),
                ` · ${m.kept.entries} entries up to the compaction`,
              )
            : "nothing (the context restarts from the summary)",
        ],
        [
          "Replaced",
          m.replaced.firstId
            ? h(
                "span",
                {},
                action(
                  `${m.replaced.entries} entries`,
                  { type: "revealEntry", file: m.file, entryId: m.replaced.firstId },
                  "Reveal the first replaced entry",
                ),
                m.replaced.throughId ? ` through ${m.replaced.throughId}` : "",
              )
            : "nothing",
        ],
        [
          "Context here",
          action("Show the effective context after this compaction", {
            type: "showContext",
            file: m.file,
            entryId: m.entryId,
          }),
        ],
      ]),
    ),
    section(
      "Readable summary",
      renderSummary(m.summary),
      m.summaryUsage
        ? h(
            "p",
            { class: "muted", id: "summary-usage" },
            `Written by the harness's own summary call: ${tokens(m.summaryUsage.input)} in · ` +
              `${tokens(m.summaryUsage.output)} out · ${cost(m.summaryUsage.cost)} ` +
              "(counted apart from any server compaction).",
          )
        : null,
    ),
    section(
      "Files",
      h(
        "div",
        { class: "columns" },
        h(
          "div",
          {},
          h("h3", {}, `Read (${m.readFiles.length})`),
          h("ul", {}, ...m.readFiles.map((f) => h("li", {}, h("code", {}, f)))),
        ),
        h(
          "div",
          {},
          h("h3", {}, `Modified (${m.modifiedFiles.length})`),
          h("ul", {}, ...m.modifiedFiles.map((f) => h("li", {}, h("code", {}, f)))),
        ),
      ),
    ),
    m.omp
      ? section(
          "Oh My Pi",
          kv([
            ["method", m.omp.method ?? "(none)"],
            ["shortSummary", m.omp.shortSummary ?? "(none)"],
            ["preserveData", m.omp.preserveData ? "present" : "absent"],
            ["fromExtension", m.fromExtension ? "yes" : "no"],
          ]),
        )
      : null,
    b
      ? section(
          "Server checkpoint (Blackmagic details)",
          kv([
            [
              "Replays",
              b.invalidReason === null ? yesNo(true, "valid checkpoint", "") : yesNo(false, "", b.invalidReason),
            ],
            ["Made by", m.method ?? "(unknown)"],
            ["schemaVersion / state", `${JSON.stringify(b.schemaVersion)} / ${b.state ?? "(none)"}`],
            ...Object.entries(b.identity).map(([k, v]) => [`identity.${k}`, v] as [string, string]),
            ...(b.checkpoint
              ? ([
                  [
                    "Artifact",
                    `${b.checkpoint.items} items · ${b.checkpoint.bytes} bytes · ` +
                      `retention ${b.checkpoint.retention ?? "(none)"}`,
                  ],
                  ["Items by type", m.itemTypes.map((t) => `${t.type} ×${t.count}`).join(" · ") || "(none)"],
                  [
                    "sha256",
                    h(
                      "span",
                      {},
                      yesNo(b.checkpoint.hashOk, "matches", "differs"),
                      " ",
                      h("code", {}, b.checkpoint.computedHash),
                    ),
                  ],
                  [
                    "length",
                    h(
                      "span",
                      {},
                      yesNo(b.checkpoint.lengthOk, "matches", "differs"),
                      ` computed ${b.checkpoint.computedLength}, stored ${b.checkpoint.storedLength ?? "(none)"}`,
                    ),
                  ],
                ] as [string, string | Node][])
              : [["Artifact", "(none)"] as [string, string]]),
            [
              "Server compaction usage",
              b.usage
                ? Object.entries(b.usage)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(" · ") + " (the provider gives no price)"
                : "(none)",
            ],
            ["Server latency", b.latencyMs === null ? "(none)" : `${b.latencyMs} ms`],
            [
              "Lineage",
              b.lineage
                ? Object.entries(b.lineage)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(" · ")
                : "(none)",
            ],
            [
              "Replay",
              b.replay
                ? (b.replay.namespace ?? "(no namespace)") +
                  (b.replay.scope ? ` · scope ${b.replay.scope}` : "") +
                  ` · ${b.replay.hashes} item hashes${b.replay.hashesWellFormed ? "" : " (malformed)"}`
                : "(none)",
            ],
            ...(b.fallback
              ? ([
                  [
                    "Local fallback",
                    [b.fallback.method, b.fallback.failureClass && `(failure class ${b.fallback.failureClass})`]
                      .filter(Boolean)
                      .join(" "),
                  ],
                ] as [string, string][])
              : []),
          ]),
          b.checkpoint?.encrypted.length
            ? table(
                "Encrypted content (never shown in full)",
                [
                  { title: "Length", value: (e) => e.length, numeric: true },
                  { title: "sha256", value: (e) => h("code", {}, e.sha256) },
                  { title: "Prefix", value: (e) => h("code", {}, `${e.prefix}…`) },
                ],
                b.checkpoint.encrypted,
              )
            : null,
        )
      : null,
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
  };
});
