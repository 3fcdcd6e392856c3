/**
 * Shared webview runtime: the bootstrap from the escaped data attribute, the ready handshake, typed messages,
 * persisted state, and DOM helpers that only ever set text (session content is untrusted: never innerHTML).
 */
import "./translations.js";
import * as l10n from "@vscode/l10n";
import type { Facts, FromWebview, PanelState, ToWebview } from "../protocol/messages.js";
export type { Facts } from "../protocol/messages.js";
import type { PanelModel } from "../protocol/views.js";
import { type Child, h } from "./dom.js";
export { h, mount, svg } from "./dom.js";

const vscode = acquireVsCodeApi<PanelState>();

export function send(message: FromWebview): void {
  vscode.postMessage(message);
}

/** The panel's state: what it is about. Persisted so the panel comes back after a reload. */
export function panelState(): PanelState {
  const el = document.getElementById("bootstrap");
  const boot = el?.dataset.state ? (JSON.parse(el.dataset.state) as PanelState) : undefined;
  return { ...(boot ?? { panel: "usage" }), ...(vscode.getState() ?? {}) } as PanelState;
}

export function saveState(state: PanelState): void {
  vscode.setState(state);
}

/**
 * Start the panel: render every model the host sends, report what was rendered, and say "ready" once listening
 * (the host sends nothing before that).
 */
export function boot<M extends PanelModel>(render: (model: M, seq: number) => Facts): void {
  saveState(panelState());
  const root = document.getElementById("root")!;
  window.addEventListener("message", (event: MessageEvent<ToWebview>) => {
    const msg = event.data;
    if (msg.type === "error") {
      root.replaceChildren(h("p", { class: "error", role: "alert" }, msg.message));
      return;
    }
    if (msg.type === "model") {
      const facts = render(msg.model as M, msg.seq);
      send({ type: "rendered", seq: msg.seq, facts });
    }
  });
  send({ type: "ready" });
}

/** The one way figures are written (shared with the tree and the CLI). */
export { formatCost as cost, formatTokens as tokens } from "../protocol/format.js";

export interface Column<R> {
  title: string;
  value: (row: R) => Child;
  numeric?: boolean;
}

/** An accessible data table (also the table view of every chart). */
export function table<R>(
  caption: string,
  columns: Column<R>[],
  rows: R[],
  rowAttrs?: (row: R) => Record<string, string | undefined>,
): HTMLTableElement {
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h(
      "thead",
      {},
      h("tr", {}, ...columns.map((c) => h("th", { scope: "col", class: c.numeric ? "num" : undefined }, c.title))),
    ),
    tbodyOf(columns, rows, rowAttrs),
  );
}

/** Rows a table shows at most; a note says how many more there are (the chart above has them all). */
const TABLE_ROWS = 2000;

/** The rows appended one by one: spreading thousands of them as arguments would overflow the call stack. */
function tbodyOf<R>(
  columns: Column<R>[],
  rows: R[],
  rowAttrs?: (row: R) => Record<string, string | undefined>,
): HTMLTableSectionElement {
  const body = h("tbody", {});
  for (const r of rows.slice(0, TABLE_ROWS))
    body.append(
      h(
        "tr",
        rowAttrs?.(r) ?? {},
        ...columns.map((c) => h("td", { class: c.numeric ? "num" : undefined }, c.value(r))),
      ),
    );
  if (rows.length > TABLE_ROWS)
    body.append(
      h(
        "tr",
        { class: "muted" },
        h("td", { colspan: columns.length }, l10n.t("{0} more rows", rows.length - TABLE_ROWS)),
      ),
    );
  return body;
}

/** A link-styled button that posts a message (no navigation, no URLs). */
export function action(label: string, message: FromWebview, title?: string): HTMLButtonElement {
  const b = h("button", { class: "link", type: "button", title }, label);
  b.addEventListener("click", () => send(message));
  return b;
}

/** A theme colour from the VS Code CSS variables (charts follow the theme). */
export function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

const CHART_COLORS = [
  "--vscode-charts-blue",
  "--vscode-charts-orange",
  "--vscode-charts-green",
  "--vscode-charts-purple",
  "--vscode-charts-red",
  "--vscode-charts-yellow",
];

export function seriesColor(i: number): string {
  return themeColor(CHART_COLORS[i % CHART_COLORS.length]!, "#888");
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", {}, h("h2", {}, title), ...children);
}
