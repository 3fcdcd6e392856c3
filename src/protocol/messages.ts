/**
 * Messages between the extension host and the panels' webviews. The webview side is untrusted (it renders session
 * content), so the host validates every message with these schemas before acting on it.
 */
import * as z from "zod";
import type { PanelModel } from "./views.js";

export const PANEL_KINDS = ["usage", "sessionUsage", "checkpoint", "lineage", "context", "compare"] as const;
export type PanelKind = (typeof PANEL_KINDS)[number];

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const id = z.string().min(1).max(200);
const file = z.string().min(1).max(4096);

/** What a panel is about; also its persisted webview state (revived after a window reload). */
export const panelStateSchema = z.discriminatedUnion("panel", [
  /** The dashboard: its scope and date range (the page may change them). */
  z.object({
    panel: z.literal("usage"),
    scope: z.enum(["workspace", "all", "team"]).optional(),
    since: day.nullable().optional(),
    until: day.nullable().optional(),
  }),
  z.object({ panel: z.literal("sessionUsage"), file: file.optional() }),
  z.object({ panel: z.literal("checkpoint"), file: file.optional(), entryId: id.optional() }),
  z.object({ panel: z.literal("lineage"), file: file.optional() }),
  /** The effective context at an entry (the active leaf without one). */
  z.object({ panel: z.literal("context"), file: file.optional(), entryId: id.optional() }),
  /** Branch comparison: the first side's session and leaf, and the second's (the same session without one). */
  z.object({
    panel: z.literal("compare"),
    file: file.optional(),
    entryId: id.optional(),
    otherFile: file.optional(),
    otherEntryId: id.optional(),
  }),
]);
export type PanelState = z.infer<typeof panelStateSchema>;
/** The state of one kind of panel. */
export type PanelStateOf<K extends PanelKind> = Extract<PanelState, { panel: K }>;

/** The session a panel is about (none for the dashboard). */
export function panelFile(state: PanelState): string | undefined {
  return state.panel === "usage" ? undefined : state.file;
}

/** What a page reports having rendered (counts and figures), for tests and the log. */
export type Facts = Record<string, string | number | boolean>;

export const fromWebviewSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  /** What the page shows after rendering a model (counts and figures), for tests and the log. */
  z.object({
    type: z.literal("rendered"),
    seq: z.number().int(),
    facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  }),
  z.object({ type: z.literal("revealSession"), file }),
  z.object({ type: z.literal("revealEntry"), file, entryId: id }),
  z.object({ type: z.literal("inspectCheckpoint"), file, entryId: id }),
  z.object({ type: z.literal("showContext"), file, entryId: id }),
  z.object({ type: z.literal("showSessionUsage"), file }),
  /** A link clicked in session text (rendered Markdown): the host opens only http(s), after asking. */
  z.object({ type: z.literal("openLink"), url: z.string().min(1).max(8192) }),
  /** Branch comparison: diff the two sides' final texts of a file both changed. */
  z.object({ type: z.literal("diffFinalTexts"), path: file }),
  z.object({
    type: z.literal("setRange"),
    scope: z.enum(["workspace", "all", "team"]),
    since: day.nullable(),
    until: day.nullable(),
  }),
  z.object({
    type: z.literal("export"),
    format: z.enum(["csv", "json"]),
    table: z.enum(["models", "projects", "sessions", "days", "machines"]),
  }),
  /** The Team scope's buttons: run Set Team Database… or Sync Now (the host asks and acts; the page names nothing). */
  z.object({ type: z.literal("team"), action: z.enum(["setDatabase", "sync"]) }),
]);
export type FromWebview = z.infer<typeof fromWebviewSchema>;

export type ToWebview = { type: "model"; seq: number; model: PanelModel } | { type: "error"; message: string };
