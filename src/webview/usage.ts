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
    action("Export CSV", { type: "export", format: "csv", table: t }),
    " ",
    action("Export JSON", { type: "export", format: "json", table: t }),
  );
}

const usageColumns = (first: string, key: (r: UsageTableRow) => Node | string): Column<UsageTableRow>[] => [
  { title: first, value: key },
  { title: "Cost", value: (r) => formatRowCost(r), numeric: true },
  { title: "Active path", value: (r) => cost(r.activeCost), numeric: true },
  { title: "Input", value: (r) => tokens(r.input), numeric: true },
  { title: "Output", value: (r) => tokens(r.output), numeric: true },
  { title: "Cache read", value: (r) => tokens(r.cacheRead), numeric: true },
  { title: "Cache write", value: (r) => tokens(r.cacheWrite), numeric: true },
  { title: "Messages", value: (r) => r.messages, numeric: true },
];

function barChart(label: string, rows: UsageTableRow[], color: string): HTMLElement {
  const canvas = h("canvas");
  charts.push(
    new Chart(canvas, {
      type: "bar",
      data: {
        labels: rows.map((r) => r.label),
        datasets: [{ label: "Cost (USD)", data: rows.map((r) => r.cost), backgroundColor: color }],
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
    { id: "scope", "aria-label": "Scope" },
    h("option", { value: "workspace", selected: m.scope === "workspace" }, "This workspace"),
    h("option", { value: "all", selected: m.scope === "all" }, "All projects"),
  );
  const since = h("input", { id: "since", type: "date", value: m.since ?? "", "aria-label": "From" });
  const until = h("input", { id: "until", type: "date", value: m.until ?? "", "aria-label": "To" });
  const apply = h("button", { type: "button", id: "apply" }, "Apply");
  apply.addEventListener("click", () => {
    const next = { scope: scope.value as "workspace" | "all", since: since.value || null, until: until.value || null };
    saveState({ ...panelState(), ...next });
    send({ type: "setRange", ...next });
  });
  return h(
    "div",
    { class: "controls" },
    h("label", {}, "Scope ", scope),
    h("label", {}, "From ", since),
    h("label", {}, "To ", until),
    apply,
  );
}

boot<DashboardModel>((m) => {
  for (const c of charts) c.destroy();
  charts = [];
  applyTheme();
  const t = m.totals;
  const root = document.getElementById("root")!;
  const card = (label: string, value: string, id: string) =>
    h("div", { class: "card" }, h("div", { class: "card-label" }, label), h("div", { class: "card-value", id }, value));
  const models = [...new Set(m.days.flatMap((d) => Object.keys(d.byModel)))].sort();
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
        scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: "USD" } } },
      },
    }),
  );
  const scopeText =
    m.scope === "workspace" ? (m.folders.length ? m.folders.join(", ") : "no folder open") : "all projects";
  mount(
    root,
    h(
      "header",
      {},
      h("h1", {}, "Usage & Cost"),
      h(
        "p",
        { class: "muted" },
        `${m.sessions} sessions · ${scopeText}` +
          (m.since || m.until ? ` · ${m.since ?? "…"} to ${m.until ?? "…"}` : "") +
          ". Forks' inherited turns count once, for their parent.",
      ),
      unpricedNote(t.unpriced)
        ? h("p", { class: "muted", "data-testid": "unpriced-note" }, unpricedNote(t.unpriced)!)
        : "",
    ),
    controls(m),
    h(
      "div",
      { class: "cards" },
      card("Cost", formatRowCost(t), "total-cost"),
      card("Active path", cost(t.activeCost), "active-cost"),
      card("Inherited by forks (not recounted)", cost(t.inheritedCost), "inherited-cost"),
      card("Input", tokens(t.input), "total-input"),
      card("Output", tokens(t.output), "total-output"),
      card("Cache read", tokens(t.cacheRead), "total-cache-read"),
      card("Cache write", tokens(t.cacheWrite), "total-cache-write"),
      card("Messages", String(t.messages), "total-messages"),
    ),
    section(
      "Daily cost by model",
      chartBox("Daily cost, stacked by model", daily),
      h(
        "details",
        {},
        h("summary", {}, "Table"),
        table(
          "Daily cost by model",
          [
            { title: "Day", value: (d) => d.day },
            ...models.map((model) => ({
              title: model,
              value: (d: DashboardModel["days"][number]) => cost(d.byModel[model] ?? 0),
              numeric: true,
            })),
            { title: "Total", value: (d) => cost(d.cost), numeric: true },
          ],
          m.days,
        ),
        exportButtons("days"),
      ),
    ),
    section(
      "By model",
      barChart("Cost by model", m.models, seriesColor(0)),
      table(
        "Cost by model",
        usageColumns("Model", (r) => r.label),
        m.models,
      ),
      exportButtons("models"),
    ),
    section(
      "By project",
      barChart("Cost by project", m.projects, seriesColor(1)),
      table(
        "Cost by project",
        usageColumns("Project", (r) => r.label),
        m.projects,
      ),
      exportButtons("projects"),
    ),
    section(
      "Top sessions",
      table(
        "Top sessions by cost",
        [
          ...usageColumns("Session", (r) =>
            r.file
              ? action(r.label || r.key, { type: "revealSession", file: r.file }, "Reveal in the Sessions tree")
              : r.label,
          ),
          { title: "Inherited (parent's)", value: (r) => cost(r.inheritedCost ?? 0), numeric: true },
        ],
        m.topSessions,
        (r) => ({
          class: r.includedInParent ? "muted" : undefined,
          title: r.includedInParent ? "A subagent: counted through its parent's task result" : undefined,
        }),
      ),
      exportButtons("sessions"),
    ),
  );
  return {
    sessions: m.sessions,
    cost: t.cost.toFixed(6),
    messages: t.messages,
    models: m.models.length,
    days: m.days.length,
    shownCost: document.getElementById("total-cost")!.textContent ?? "",
  };
});
