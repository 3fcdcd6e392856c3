/** One session's usage: per branch, per turn, and the context size over time with compaction markers. */
import type { SessionUsageModel, TurnPoint } from "../protocol/views.js";
import { applyTheme, Chart } from "./charts.js";
import { action, boot, cost, h, mount, section, send, seriesColor, table, themeColor, tokens } from "./common.js";
import * as l10n from "@vscode/l10n";
import { formatDateTime } from "../protocol/format.js";

let charts: Chart[] = [];

type Compaction = SessionUsageModel["compactions"][number];
/** What the charts show: one line per branch (its path's turns and compactions), and each paid turn as a bar. */
interface Shown {
  lines: { label: string; active: boolean; turns: TurnPoint[]; compactions: Compaction[] }[];
  bars: { cost: number; time: number; active: boolean }[];
}

const branchLabel = (b: SessionUsageModel["branches"][number]) =>
  (b.numbers ? l10n.t("Branch {0}: {1}", b.numbers, b.name) : l10n.t("The session")) +
  (b.active ? ` ${l10n.t("(active)")}` : "");

/** "all": every branch's line and every turn once; a leaf id: that branch alone. */
function shownOf(m: SessionUsageModel, choice: string): Shown {
  const one = m.branches.find((b) => b.leafId === choice);
  if (one)
    return {
      lines: [{ label: branchLabel(one), active: one.active, turns: one.turns, compactions: one.compactions }],
      bars: one.turns.map((t) => ({ ...t, active: one.active })),
    };
  const lines = m.branches.length
    ? m.branches.map((b) => ({ label: branchLabel(b), active: b.active, turns: b.turns, compactions: b.compactions }))
    : [{ label: l10n.t("The session"), active: true, turns: m.turns, compactions: m.compactions }];
  return { lines, bars: m.allTurns };
}

/** The context size per assistant turn along each branch shown, with its compactions marked. */
function contextChart(shown: Shown): HTMLCanvasElement {
  const contextCanvas = h("canvas", {
    role: "img",
    "aria-label": l10n.t("Context size per assistant turn, with compaction markers"),
  });
  const longest = Math.max(0, ...shown.lines.map((l) => l.turns.length));
  const markers: (number | null)[] = Array.from({ length: longest }, () => null);
  for (const line of shown.lines)
    for (const c of line.compactions) {
      const at = line.turns[c.afterTurn];
      if (at) markers[c.afterTurn] = Math.max(markers[c.afterTurn] ?? 0, at.context);
    }
  charts.push(
    new Chart(contextCanvas, {
      type: "line",
      data: {
        labels: Array.from({ length: longest }, (_, i) => String(i + 1)),
        datasets: [
          ...shown.lines.map((line, i) => ({
            label: line.label,
            data: line.turns.map((t) => t.context),
            borderColor: seriesColor(i),
            backgroundColor: seriesColor(i),
            // The active path stands out; the other branches are thinner.
            borderWidth: line.active ? 3 : 1,
            pointRadius: line.active ? 2 : 1,
          })),
          {
            label: l10n.t("Compaction (context replaced after this turn)"),
            data: markers,
            showLine: false,
            pointStyle: "triangle",
            pointRadius: 9,
            borderColor: themeColor("--vscode-charts-yellow", "#cc0"),
            backgroundColor: themeColor("--vscode-charts-yellow", "#cc0"),
          },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { title: { display: true, text: l10n.t("assistant turn along the branch") } },
          y: { beginAtZero: true, title: { display: true, text: l10n.t("tokens") } },
        },
      },
    }),
  );
  return contextCanvas;
}

/** The cost of each turn shown (every turn once for all branches), the active path's apart from the others'. */
function costChart(shown: Shown): HTMLCanvasElement {
  const costCanvas = h("canvas", { role: "img", "aria-label": l10n.t("Cost per assistant turn") });
  const of = (active: boolean) => shown.bars.map((b) => (b.active === active ? b.cost : null));
  charts.push(
    new Chart(costCanvas, {
      type: "bar",
      data: {
        labels: shown.bars.map((_, i) => String(i + 1)),
        datasets: [
          { label: l10n.t("Active path (USD)"), data: of(true), backgroundColor: seriesColor(1) },
          { label: l10n.t("Other branches (USD)"), data: of(false), backgroundColor: seriesColor(3) },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true } },
      },
    }),
  );
  return costCanvas;
}

/** The title and the session's own, active-path and inherited cost. */
function headerOf(m: SessionUsageModel): HTMLElement {
  const t = m.totals;
  return h(
    "header",
    {},
    h("h1", {}, m.title),
    h(
      "p",
      { class: "muted" },
      l10n.t("Own cost {0} · active path {1}", cost(t.cost), cost(t.activeCost)) +
        (t.inheritedCost
          ? ` · ${l10n.t("{0} inherited from the parent (counted there)", cost(t.inheritedCost))}`
          : "") +
        ` · ${l10n.t("{0} priced messages", t.messages)}`,
    ),
  );
}

/** Cost and tokens per branch segment. */
function branchesSection(m: SessionUsageModel): HTMLElement {
  return section(
    l10n.t("Branches"),
    table(
      l10n.t("Cost and tokens per branch segment (the active path is marked)"),
      [
        {
          title: l10n.t("Branch"),
          value: (g) =>
            h(
              "span",
              { class: `depth-${Math.min(g.depth, 6)}` },
              g.active ? "● " : "○ ",
              action(
                g.label,
                { type: "revealEntry", file: m.file, entryId: g.startId },
                l10n.t("Reveal in the Sessions tree"),
              ),
            ),
        },
        { title: l10n.t("Entries"), value: (g) => g.entries, numeric: true },
        { title: l10n.t("Cost"), value: (g) => cost(g.cost), numeric: true },
        { title: l10n.t("Input"), value: (g) => tokens(g.input), numeric: true },
        { title: l10n.t("Output"), value: (g) => tokens(g.output), numeric: true },
        { title: l10n.t("Cache read"), value: (g) => tokens(g.cacheRead), numeric: true },
        { title: l10n.t("Inherited"), value: (g) => cost(g.inheritedCost), numeric: true },
      ],
      m.segments,
      (g) => ({ class: g.active ? "active" : "muted" }),
    ),
  );
}

/** The context size chart and its table (one row per turn of each branch shown). */
function contextSection(shown: Shown, contextCanvas: HTMLCanvasElement): HTMLElement {
  const rows = shown.lines.flatMap((line) =>
    line.turns.map((t, i) => ({ line, t, i, compacted: line.compactions.some((c) => c.afterTurn === i) })),
  );
  return section(
    l10n.t("Context size over time"),
    h("div", { class: "chart" }, contextCanvas),
    h(
      "details",
      {},
      h("summary", {}, l10n.t("Table")),
      table(
        l10n.t("Context per turn"),
        [
          ...(shown.lines.length > 1
            ? [{ title: l10n.t("Branch"), value: (x: (typeof rows)[number]) => x.line.label }]
            : []),
          { title: l10n.t("Turn"), value: (x) => x.i + 1, numeric: true },
          { title: l10n.t("Context"), value: (x) => tokens(x.t.context), numeric: true },
          { title: l10n.t("Model"), value: (x) => x.t.model },
          { title: l10n.t("Compaction after"), value: (x) => (x.compacted ? l10n.t("yes") : "") },
        ],
        rows,
      ),
    ),
  );
}

/** The cost per turn chart and its table. */
function costSection(shown: Shown, costCanvas: HTMLCanvasElement): HTMLElement {
  return section(
    l10n.t("Cost per turn"),
    h("div", { class: "chart" }, costCanvas),
    h(
      "details",
      {},
      h("summary", {}, l10n.t("Table")),
      table(
        l10n.t("Cost per turn"),
        [
          { title: l10n.t("Turn"), value: (x) => x.i + 1, numeric: true },
          { title: l10n.t("Cost"), value: (x) => cost(x.t.cost), numeric: true },
          { title: l10n.t("Active path"), value: (x) => (x.t.active ? "●" : "") },
          {
            title: l10n.t("When"),
            value: (x) => (Number.isFinite(x.t.time) ? formatDateTime(x.t.time) : ""),
          },
        ],
        shown.bars.map((tt, i) => ({ t: tt, i })),
      ),
    ),
  );
}

/** Which branches the charts show: all of them (the default), or one. Only for a session with branches. */
function branchPicker(m: SessionUsageModel, choice: string, onChange: (choice: string) => void): HTMLElement | null {
  if (m.branches.length < 2) return null;
  const select = h(
    "select",
    { id: "branch-choice", "aria-label": l10n.t("Branches charted") },
    h("option", { value: "all" }, l10n.t("All branches ({0})", m.branches.length + m.moreBranches)),
    ...m.branches.map((b) => h("option", { value: b.leafId }, branchLabel(b))),
  );
  select.value = choice;
  select.addEventListener("change", () => onChange(select.value));
  return h("div", { class: "controls" }, h("label", { for: "branch-choice" }, l10n.t("Chart")), select);
}

/** The branch the reader chose, kept while the model is updated (an append re-renders the page). */
let choice = "all";

function render(m: SessionUsageModel, seq: number): Record<string, string | number | boolean> {
  for (const c of charts) c.destroy();
  charts = [];
  applyTheme();
  const root = document.getElementById("root")!;
  if (!m.turns.length && !m.allTurns.length) {
    // Nothing to chart: a sentence, not empty charts.
    const none = h(
      "p",
      { class: "empty", id: "no-usage", role: "status" },
      l10n.t("No agent reply with token counts in this session yet."),
    );
    mount(root, headerOf(m), none);
    return {
      segments: m.segments.length,
      turns: 0,
      compactions: 0,
      cost: m.totals.cost.toFixed(6),
      branches: m.branches.length,
      empty: true,
    };
  }
  if (choice !== "all" && !m.branches.some((b) => b.leafId === choice)) choice = "all";
  const shown = shownOf(m, choice);
  const contextCanvas = contextChart(shown);
  const costCanvas = costChart(shown);
  const picker = branchPicker(m, choice, (next) => {
    choice = next;
    send({ type: "rendered", seq, facts: render(m, seq) });
  });
  const t = m.totals;
  mount(
    root,
    headerOf(m),
    branchesSection(m),
    picker ?? "",
    contextSection(shown, contextCanvas),
    costSection(shown, costCanvas),
  );
  return {
    segments: m.segments.length,
    turns: m.turns.length,
    compactions: m.compactions.length,
    cost: t.cost.toFixed(6),
    branches: m.branches.length,
    charted: choice,
    lines: shown.lines.length,
    bars: shown.bars.length,
    markers: shown.lines.reduce((n, l) => n + l.compactions.length, 0),
  };
}

boot<SessionUsageModel>(render);
