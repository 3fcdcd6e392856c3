/** Usage & Cost dashboard. */
import { formatRowCost, unpricedNote } from "../protocol/format.js";
import type { DashboardModel, UsageTableRow } from "../protocol/views.js";
import { applyTheme, Chart } from "./charts.js";
import {
  action,
  boot,
  type Column,
  cost,
  h,
  mount,
  panelState,
  saveState,
  section,
  send,
  seriesColor,
  table,
  tokens,
} from "./common.js";
import * as l10n from "@vscode/l10n";
import { machinesSection, teamFacts, teamNotice } from "./usageTeam.js";

let charts: Chart[] = [];

function chartBox(label: string, canvas: HTMLCanvasElement): HTMLElement {
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", label);
  return h("div", { class: "chart" }, canvas);
}

function exportButtons(t: "models" | "projects" | "sessions" | "days"): HTMLElement {
  return h(
    "span",
    { class: "exports" },
    action(l10n.t("Export CSV"), { type: "export", format: "csv", table: t }),
    " ",
    action(l10n.t("Export JSON"), { type: "export", format: "json", table: t }),
  );
}

const usageColumns = (first: string, key: (r: UsageTableRow) => Node | string): Column<UsageTableRow>[] => [
  { title: first, value: key },
  { title: l10n.t("Cost"), value: (r) => formatRowCost(r), numeric: true },
  { title: l10n.t("Active path"), value: (r) => cost(r.activeCost), numeric: true },
  { title: l10n.t("Input"), value: (r) => tokens(r.input), numeric: true },
  { title: l10n.t("Output"), value: (r) => tokens(r.output), numeric: true },
  { title: l10n.t("Cache read"), value: (r) => tokens(r.cacheRead), numeric: true },
  { title: l10n.t("Cache write"), value: (r) => tokens(r.cacheWrite), numeric: true },
  { title: l10n.t("Messages"), value: (r) => r.messages, numeric: true },
];

function barChart(label: string, rows: UsageTableRow[], color: string): HTMLElement {
  const canvas = h("canvas");
  charts.push(
    new Chart(canvas, {
      type: "bar",
      data: {
        labels: rows.map((r) => r.label),
        datasets: [{ label: l10n.t("Cost (USD)"), data: rows.map((r) => r.cost), backgroundColor: color }],
      },
      options: {
        indexAxis: "y",
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
      },
    }),
  );
  return chartBox(label, canvas);
}

function controls(m: DashboardModel): HTMLElement {
  const scope = h(
    "select",
    { id: "scope", "aria-label": l10n.t("Scope") },
    h("option", { value: "workspace", selected: m.scope === "workspace" }, l10n.t("This workspace")),
    h("option", { value: "all", selected: m.scope === "all" }, l10n.t("All projects")),
    h("option", { value: "team", selected: m.scope === "team" }, l10n.t("Team (all machines)")),
  );
  const since = h("input", { id: "since", type: "date", value: m.since ?? "", "aria-label": l10n.t("From") });
  const until = h("input", { id: "until", type: "date", value: m.until ?? "", "aria-label": l10n.t("To") });
  const apply = h("button", { type: "button", id: "apply" }, l10n.t("Apply"));
  apply.addEventListener("click", () => {
    const next = {
      scope: scope.value as DashboardModel["scope"],
      since: since.value || null,
      until: until.value || null,
    };
    saveState({ ...panelState(), ...next });
    send({ type: "setRange", ...next });
  });
  return h(
    "div",
    { class: "controls" },
    h("label", {}, l10n.t("Scope"), " ", scope),
    h("label", {}, l10n.t("From"), " ", since),
    h("label", {}, l10n.t("To"), " ", until),
    apply,
  );
}

/** The daily cost chart, one stacked series per model (drawn once the canvas is mounted). */
function dailyChart(m: DashboardModel, models: string[]): HTMLCanvasElement {
  const daily = h("canvas");
  charts.push(
    new Chart(daily, {
      type: "bar",
      data: {
        labels: m.days.map((d) => d.day),
        datasets: models.map((model, i) => ({
          label: model,
          data: m.days.map((d) => d.byModel[model] ?? 0),
          backgroundColor: seriesColor(i),
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: l10n.t("USD") } } },
      },
    }),
  );
  return daily;
}

/** The title line: how many sessions, which scope and dates, and the unpriced note. */
function headerOf(m: DashboardModel): HTMLElement {
  const scopeText =
    m.scope === "workspace"
      ? m.folders.length
        ? m.folders.join(", ")
        : l10n.t("no folder open")
      : m.scope === "team"
        ? l10n.t("every machine of the team database")
        : l10n.t("all projects");
  return h(
    "header",
    {},
    h("h1", {}, l10n.t("Usage & Cost")),
    h(
      "p",
      { class: "muted" },
      l10n.t("{0} sessions · {1}", m.sessions, scopeText) +
        (m.since || m.until ? ` · ${l10n.t("{0} to {1}", m.since ?? "…", m.until ?? "…")}` : "") +
        ". " +
        l10n.t("Forks' inherited turns count once, for their parent."),
    ),
    unpricedNote(m.totals.unpriced)
      ? h("p", { class: "muted", "data-testid": "unpriced-note" }, unpricedNote(m.totals.unpriced)!)
      : "",
  );
}

const card = (label: string, value: string, id: string) =>
  h("div", { class: "card" }, h("div", { class: "card-label" }, label), h("div", { class: "card-value", id }, value));

/** What the page says when no assistant message in the scope and dates reported usage. */
function emptyNote(m: DashboardModel): HTMLElement {
  const where =
    m.scope === "workspace"
      ? l10n.t("this workspace's sessions")
      : m.scope === "team"
        ? l10n.t("the team database")
        : l10n.t("any session");
  const dates = m.since || m.until ? ` ${l10n.t("between {0} and {1}", m.since ?? "…", m.until ?? "…")}` : "";
  const hint =
    m.scope === "workspace"
      ? l10n.t("Choose All projects above, or a wider range.")
      : dates
        ? l10n.t("Choose a wider range above.")
        : m.scope === "team"
          ? l10n.t("Run Sync Now on each machine to send its usage.")
          : l10n.t("Sessions count once an agent has answered in them.");
  return h(
    "p",
    { class: "empty", id: "no-usage", role: "status" },
    `${l10n.t("No usage in {0}{1}: no agent reply with token counts.", where, dates)} ${hint}`,
  );
}

/**
 * The totals, one card each. What forks copied from their parents is not a total of its own (it can be more than the
 * cost: several forks copy the same turns), so it is a line under the cost it is not part of.
 */
function cardsOf(t: DashboardModel["totals"]): HTMLElement {
  const costCard = card(l10n.t("Cost"), formatRowCost(t), "total-cost");
  if (t.inheritedCost) {
    // The amount is an element of its own (tests and screen readers find it); the sentence around it is translated.
    const sentence = l10n.t(
      "Forks also copied {0} of their parents' turns: counted once, here, for the parent.",
      "\u0000",
    );
    const [before, after] = sentence.split("\u0000");
    costCard.append(
      h(
        "div",
        { class: "card-note" },
        before ?? "",
        h("span", { id: "inherited-cost" }, cost(t.inheritedCost)),
        after ?? "",
      ),
    );
  }
  return h(
    "div",
    { class: "cards" },
    costCard,
    card(l10n.t("Active path"), cost(t.activeCost), "active-cost"),
    card(l10n.t("Input"), tokens(t.input), "total-input"),
    card(l10n.t("Output"), tokens(t.output), "total-output"),
    card(l10n.t("Cache read"), tokens(t.cacheRead), "total-cache-read"),
    card(l10n.t("Cache write"), tokens(t.cacheWrite), "total-cache-write"),
    card(l10n.t("Messages"), String(t.messages), "total-messages"),
  );
}

/** The daily cost by model: the chart, and its table with export buttons. */
function dailySection(m: DashboardModel, models: string[], daily: HTMLCanvasElement): HTMLElement {
  return section(
    l10n.t("Daily cost by model"),
    chartBox(l10n.t("Daily cost, stacked by model"), daily),
    h(
      "details",
      {},
      h("summary", {}, l10n.t("Table")),
      table(
        l10n.t("Daily cost by model"),
        [
          { title: l10n.t("Day"), value: (d) => d.day },
          ...models.map((model) => ({
            title: model,
            value: (d: DashboardModel["days"][number]) => cost(d.byModel[model] ?? 0),
            numeric: true,
          })),
          { title: l10n.t("Total"), value: (d) => cost(d.cost), numeric: true },
        ],
        m.days,
      ),
      exportButtons("days"),
    ),
  );
}

/** Cost by model, by project, and the top sessions. */
function breakdownSections(m: DashboardModel): HTMLElement[] {
  return [
    section(
      l10n.t("By model"),
      barChart(l10n.t("Cost by model"), m.models, seriesColor(0)),
      table(
        l10n.t("Cost by model"),
        usageColumns(l10n.t("Model"), (r) => r.label),
        m.models,
      ),
      exportButtons("models"),
    ),
    section(
      l10n.t("By project"),
      barChart(l10n.t("Cost by project"), m.projects, seriesColor(1)),
      table(
        l10n.t("Cost by project"),
        usageColumns(l10n.t("Project"), (r) => r.label),
        m.projects,
      ),
      exportButtons("projects"),
    ),
    section(
      l10n.t("Top sessions"),
      table(
        l10n.t("Top sessions by cost"),
        [
          ...usageColumns(l10n.t("Session"), (r) =>
            r.file
              ? action(r.label || r.key, { type: "revealSession", file: r.file }, l10n.t("Reveal in the Sessions tree"))
              : r.label,
          ),
          { title: l10n.t("Inherited (parent's)"), value: (r) => cost(r.inheritedCost ?? 0), numeric: true },
        ],
        m.topSessions,
        (r) => ({
          class: r.includedInParent ? "muted" : undefined,
          title: r.includedInParent ? l10n.t("A subagent: counted through its parent's task result") : undefined,
        }),
      ),
      exportButtons("sessions"),
    ),
  ];
}

boot<DashboardModel>((m) => {
  for (const c of charts) c.destroy();
  charts = [];
  applyTheme();
  const t = m.totals;
  const root = document.getElementById("root")!;
  const models = [...new Set(m.days.flatMap((d) => Object.keys(d.byModel)))].sort();
  if (!t.messages) {
    // Nothing to chart: a sentence says why, instead of empty charts and zero cards.
    mount(root, headerOf(m), controls(m), teamNotice(m), m.team?.unset ? "" : emptyNote(m));
    return {
      ...teamFacts(m),
      sessions: m.sessions,
      cost: t.cost.toFixed(6),
      messages: 0,
      models: 0,
      days: 0,
      empty: true,
      shownCost: "",
    };
  }
  const daily = dailyChart(m, models);
  mount(
    root,
    headerOf(m),
    controls(m),
    teamNotice(m),
    cardsOf(t),
    dailySection(m, models, daily),
    machinesSection(m),
    ...breakdownSections(m),
  );
  return {
    ...teamFacts(m),
    sessions: m.sessions,
    cost: t.cost.toFixed(6),
    messages: t.messages,
    models: m.models.length,
    days: m.days.length,
    shownCost: document.getElementById("total-cost")!.textContent ?? "",
    empty: false,
  };
});
