/** One session's usage: per branch, per turn, and the context size over time with compaction markers. */
import type { SessionUsageModel } from "../protocol/views.js";
import { applyTheme, Chart } from "./charts.js";
import { action, boot, cost, h, mount, section, seriesColor, table, themeColor, tokens } from "./common.js";
import * as l10n from "@vscode/l10n";

let charts: Chart[] = [];

/** The context size per assistant turn, with compaction markers. */
function contextChart(m: SessionUsageModel, labels: string[]): HTMLCanvasElement {
  const contextCanvas = h("canvas", {
    role: "img",
    "aria-label": l10n.t("Context size per assistant turn, with compaction markers"),
  });
  const markers = m.turns.map((t, i) => (m.compactions.some((c) => c.afterTurn === i) ? t.context : null));
  charts.push(
    new Chart(contextCanvas, {
      type: "line",
      data: {
        labels,
        datasets: [
          {
            label: l10n.t("Context tokens (input + cache read + cache write)"),
            data: m.turns.map((t) => t.context),
            borderColor: seriesColor(0),
            backgroundColor: seriesColor(0),
            pointRadius: 2,
          },
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
          x: { title: { display: true, text: l10n.t("assistant turn (active path)") } },
          y: { beginAtZero: true, title: { display: true, text: l10n.t("tokens") } },
        },
      },
    }),
  );
  return contextCanvas;
}

/** The cost per assistant turn. */
function costChart(m: SessionUsageModel, labels: string[]): HTMLCanvasElement {
  const costCanvas = h("canvas", { role: "img", "aria-label": l10n.t("Cost per assistant turn") });
  charts.push(
    new Chart(costCanvas, {
      type: "bar",
      data: {
        labels,
        datasets: [
          { label: l10n.t("Cost per turn (USD)"), data: m.turns.map((t) => t.cost), backgroundColor: seriesColor(1) },
        ],
      },
      options: { responsive: true, maintainAspectRatio: false, plugins: { legend: { display: false } } },
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

/** The context size chart and its table. */
function contextSection(m: SessionUsageModel, contextCanvas: HTMLCanvasElement): HTMLElement {
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
          { title: l10n.t("Turn"), value: (x) => x.i + 1, numeric: true },
          { title: l10n.t("Context"), value: (x) => tokens(x.t.context), numeric: true },
          { title: l10n.t("Model"), value: (x) => x.t.model },
          {
            title: l10n.t("Compaction after"),
            value: (x) => (m.compactions.some((c) => c.afterTurn === x.i) ? l10n.t("yes") : ""),
          },
        ],
        m.turns.map((tt, i) => ({ t: tt, i })),
      ),
    ),
  );
}

/** The cost per turn chart and its table. */
function costSection(m: SessionUsageModel, costCanvas: HTMLCanvasElement): HTMLElement {
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
          {
            title: l10n.t("When"),
            value: (x) => (Number.isFinite(x.t.time) ? new Date(x.t.time).toLocaleString() : ""),
          },
        ],
        m.turns.map((tt, i) => ({ t: tt, i })),
      ),
    ),
  );
}

boot<SessionUsageModel>((m) => {
  for (const c of charts) c.destroy();
  charts = [];
  applyTheme();
  const root = document.getElementById("root")!;
  const labels = m.turns.map((_, i) => String(i + 1));
  const contextCanvas = contextChart(m, labels);
  const costCanvas = costChart(m, labels);
  const t = m.totals;
  mount(root, headerOf(m), branchesSection(m), contextSection(m, contextCanvas), costSection(m, costCanvas));
  return {
    segments: m.segments.length,
    turns: m.turns.length,
    compactions: m.compactions.length,
    cost: t.cost.toFixed(6),
  };
});
