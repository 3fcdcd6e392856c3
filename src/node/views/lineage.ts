/**
 * The fork-lineage graph around one session: its root ancestor and every descendant, orphan and external parents as
 * placeholder nodes. Laid out by dagre (top to bottom), so the webview only draws the SVG.
 */
import dagre from "@dagrejs/dagre";
import type { LineageModel, LineageNode } from "../../protocol/views.js";
import type { StoreSession } from "../store/index.js";

export interface LineageOptions {
  /** Display name of a session. */
  title: (s: StoreSession) => string;
  ownCost: (s: StoreSession) => number;
  /** Text for the fork point of a child (its last inherited entry), e.g. the entry's prompt. */
  forkLabel: (child: StoreSession) => string;
  keyOf: (s: StoreSession) => string;
}

const W = 240;
const H = 58;

/** The session's root ancestor first, then every descendant of it (depth first). */
export function lineageMembers(focus: StoreSession): StoreSession[] {
  let root = focus;
  const seen = new Set<StoreSession>([focus]);
  while (root.parent && !seen.has(root.parent)) {
    root = root.parent;
    seen.add(root);
  }
  const members: StoreSession[] = [];
  const stack = [root];
  const inGraph = new Set<StoreSession>();
  while (stack.length) {
    const s = stack.pop()!;
    if (inGraph.has(s)) continue;
    inGraph.add(s);
    members.push(s);
    stack.push(...[...s.children].reverse());
  }
  return members;
}

export function lineageModel(focus: StoreSession, o: LineageOptions): LineageModel {
  const members = lineageMembers(focus);
  const root = members[0]!;
  const inGraph = new Set(members);
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 56, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  const nodes = new Map<string, Omit<LineageNode, "x" | "y">>();
  const edges: { from: string; to: string; label: string }[] = [];
  for (const s of members) {
    const key = o.keyOf(s);
    nodes.set(key, {
      key,
      file: s.file,
      label: o.title(s),
      date: s.summary.ok && Number.isFinite(s.summary.created) ? new Date(s.summary.created).toISOString() : null,
      ownCost: o.ownCost(s),
      flavor: s.summary.ok ? s.summary.flavor : null,
      kind: "session",
      focus: s === focus,
      width: W,
      height: H,
    });
    if (s.parent && inGraph.has(s.parent)) edges.push({ from: o.keyOf(s.parent), to: key, label: o.forkLabel(s) });
  }
  // The root's parent is missing: draw where it pointed.
  if (root.summary.ok && root.summary.parentSession && !root.parent) {
    const key = `missing:${root.summary.parentSession.raw}`;
    const external = root.parentState === "external";
    nodes.set(key, {
      key,
      file: null,
      label: root.summary.parentSession.raw,
      date: null,
      ownCost: 0,
      flavor: null,
      kind: external ? "external" : "orphan",
      focus: false,
      width: W,
      height: H,
    });
    const why =
      root.parentState === "ambiguous"
        ? "several sessions carry this id"
        : external
          ? "outside the session roots"
          : "parent not found";
    edges.push({ from: key, to: o.keyOf(root), label: why });
  }
  for (const [key, n] of nodes) g.setNode(key, { width: n.width, height: n.height });
  // Edge labels take part in the layout (dagre places them beside the edge and makes room).
  for (const e of edges)
    g.setEdge(e.from, e.to, {
      label: e.label,
      width: Math.min(260, 12 + e.label.length * 6.2),
      height: 16,
      labelpos: "r",
      labeloffset: 8,
    });
  dagre.layout(g);
  const graph = g.graph();
  return {
    kind: "lineage",
    focusFile: focus.file,
    width: Math.ceil(graph.width ?? W),
    height: Math.ceil(graph.height ?? H),
    nodes: [...nodes.values()].map((n) => {
      const p = g.node(n.key);
      return { ...n, x: p.x - n.width / 2, y: p.y - n.height / 2 };
    }),
    edges: edges.map((e) => {
      const laid = g.edge(e.from, e.to) as
        { points?: { x: number; y: number }[]; x?: number; y?: number; width?: number } | undefined;
      const points = (laid?.points ?? []).map((p) => ({ x: p.x, y: p.y }));
      const mid = points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
      // dagre gives the label's centre; the webview draws it left-aligned from its left edge.
      const labelX = laid?.x !== undefined && laid.width !== undefined ? laid.x - laid.width / 2 + 6 : mid.x + 6;
      return { ...e, points, labelX, labelY: laid?.y ?? mid.y };
    }),
  };
}
