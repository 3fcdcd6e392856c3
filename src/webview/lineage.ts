/** Fork lineage graph: sessions as nodes, parent → child edges labelled with the fork point (dagre layout, SVG). */
import type { LineageModel, LineageNode } from "../protocol/views.js";
import { boot, cost, h, mount, section, send, svg, table } from "./common.js";
import * as l10n from "@vscode/l10n";

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function nodeEl(n: LineageNode): SVGGElement {
  const g = svg("g", {
    class: `node ${n.kind}${n.focus ? " focus" : ""}${n.flavor ? ` ${n.flavor}` : ""}`,
    transform: `translate(${n.x},${n.y})`,
  });
  g.append(svg("rect", { width: n.width, height: n.height, rx: 6 }));
  g.append(svg("text", { x: 10, y: 22, class: "title" }, clip(n.label, 34)));
  const sub =
    n.kind === "session"
      ? `${n.date ? n.date.slice(0, 10) : ""} · ${cost(n.ownCost)}${n.flavor === "omp" ? " · OMP" : ""}`
      : n.kind === "orphan"
        ? l10n.t("parent not found")
        : l10n.t("outside the session roots");
  g.append(svg("text", { x: 10, y: 42, class: "sub" }, sub));
  g.append(svg("title", {}, n.label));
  if (n.file) {
    const file = n.file;
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", l10n.t("Reveal {0}", n.label));
    g.addEventListener("click", () => send({ type: "revealSession", file }));
    g.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") send({ type: "revealSession", file });
    });
  }
  return g;
}

boot<LineageModel>((m) => {
  const root = document.getElementById("root")!;
  const graph = svg("svg", {
    width: m.width,
    height: m.height,
    viewBox: `0 0 ${m.width} ${m.height}`,
    role: "img",
    "aria-label": l10n.t("Fork lineage graph"),
  });
  graph.append(
    svg(
      "defs",
      {},
      svg(
        "marker",
        {
          id: "arrow",
          viewBox: "0 0 10 10",
          refX: 9,
          refY: 5,
          markerWidth: 8,
          markerHeight: 8,
          orient: "auto-start-reverse",
        },
        svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }),
      ),
    ),
  );
  for (const e of m.edges) {
    if (e.points.length < 2) continue;
    const d = e.points.map((p, i) => `${i ? "L" : "M"} ${p.x} ${p.y}`).join(" ");
    graph.append(svg("path", { d, class: "edge", "marker-end": "url(#arrow)" }));
    graph.append(svg("text", { x: e.labelX, y: e.labelY + 4, class: "edge-label" }, clip(e.label, 42)));
  }
  for (const n of m.nodes) graph.append(nodeEl(n));
  const byKey = new Map(m.nodes.map((n) => [n.key, n]));
  mount(
    root,
    h(
      "header",
      {},
      h("h1", {}, l10n.t("Fork lineage")),
      h(
        "p",
        { class: "muted" },
        l10n.t(
          "{0} sessions. Click a session to reveal it in the tree.",
          m.nodes.filter((n) => n.kind === "session").length,
        ),
      ),
    ),
    h("div", { class: "graph" }, graph),
    section(
      l10n.t("As a table"),
      table(
        l10n.t("Forks: parent → child"),
        [
          { title: l10n.t("Parent"), value: (e) => byKey.get(e.from)?.label ?? e.from },
          { title: l10n.t("Child"), value: (e) => byKey.get(e.to)?.label ?? e.to },
          { title: l10n.t("Fork point"), value: (e) => e.label },
        ],
        m.edges,
      ),
    ),
  );
  return { nodes: m.nodes.length, edges: m.edges.length, orphans: m.nodes.filter((n) => n.kind !== "session").length };
});
