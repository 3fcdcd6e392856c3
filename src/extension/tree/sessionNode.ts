/**
 * A session: its name (or first prompt) cut at a word, time · own cost · forks, a state icon, and a tooltip built on
 * demand (model, lineage, times).
 * Expanding it reads the session once (with progress for a large file) and lists its outline's top level.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import {
  addsNoPrompt,
  childKind,
  lastActivity,
  lastWritten,
  ownCost,
  type FamilyIndex,
  type StoreSession,
} from "../../node/store/index.js";
import {
  cutAtWord,
  formatBytes,
  formatCost,
  formatDateTime,
  formatTimeOfDay,
  relativeTime,
  truncate,
} from "../../protocol/format.js";
import { describeEntry } from "../../core/entryText.js";
import { type SessionFlag, sessionContextValue } from "./contextValues.js";
import { ForkedFromNode } from "./forkedFromNode.js";
import { ForkNode } from "./forkNode.js";
import { ForksNode } from "./forksNode.js";
import { InfoNode, problemsNode } from "./infoNode.js";
import { type TreeContext, TreeNode } from "./node.js";
import { LIVE_MS, parentStateText, untrustedMarkdown } from "./present.js";
import { entriesText, forksBelowText } from "../counts.js";
import { displayTitle } from "../titles.js";

/** A row's label is cut near this many characters: at the default sidebar width, its time and cost still show. */
const ROW_LABEL_MAX = 40;

export class SessionNode extends TreeNode {
  readonly kind = "session";

  constructor(
    id: string,
    readonly file: string,
    parent: TreeNode,
    tree: TreeContext,
  ) {
    super(id, parent, tree);
  }

  /** The session's node under a group or project (one per place it is listed). */
  static of(file: string, parent: TreeNode, tree: TreeContext): SessionNode {
    return tree.intern(new SessionNode(`${parent.id}/${tree.keyOf(file)}`, file, parent, tree));
  }

  override async getChildren(): Promise<TreeNode[]> {
    const s = this.tree.lib.get(this.file);
    if (!s) return [];
    const out: TreeNode[] = [];
    const nested = this.tree.forkDisplay === "nested";
    if (nested) {
      // The family below this session first: its forks, then its subagents, each a row of its own (also under a
      // session that cannot be read: its forks are listed nowhere else).
      const families = this.tree.lib.families();
      if (families.forks(s).length) out.push(ForksNode.of(this, "forks", this.tree));
      if (families.subagents(s).length) out.push(ForksNode.of(this, "subagents", this.tree));
    }
    // A large session not read yet: its latest turns at once, the whole of it when its read ends.
    const preview = await this.tree.preview(this.file);
    const outline = preview ?? (await this.tree.outline(this.file));
    if (!outline) return [...out, ...this.unreadableChildren(s)];
    if (s.summary.ok && s.summary.parentSession) {
      out.push(this.tree.intern(new ForkedFromNode(`${this.id}/forkedFrom`, this.file, this, this.tree)));
    }
    if (preview) {
      const text = vscode.l10n.t("Reading {0}: the latest turns of the active branch so far", formatBytes(s.sizeBytes));
      out.push(this.tree.intern(new InfoNode(`${this.id}/preview`, this, this.tree, { text, icon: "loading~spin" })));
      return [...out, ...preview.items(null).map((item) => this.tree.row(this, this, item))];
    }
    out.push(...outline.items(null).map((item) => this.tree.row(this, this, item)));
    // Forks whose fork point is unknown (no inherited entries) hang off the session itself (nested: "Forks (N)").
    if (!nested) {
      for (const c of s.children) {
        if (!c.forkPointId) out.push(ForkNode.of(this, this.file, c.file, this.tree));
      }
    }
    const { detached, diagnostics, byId } = outline.session;
    if (detached.length) {
      const group = this.tree.intern(
        new InfoNode(`${this.id}/detached`, this, this.tree, {
          text: vscode.l10n.t("{0} in a parent cycle (reachable from no root)", entriesText(detached.length)),
          icon: "warning",
        }),
      );
      group.children = detached.map((id) => {
        const e = byId.get(id)!;
        return new InfoNode(`${this.id}/detached/${id}`, group, this.tree, {
          text: describeEntry(e),
          file: this.file,
          line: e.line,
        });
      });
      out.push(group);
    }
    if (diagnostics.length) out.push(problemsNode(this, this.tree, diagnostics));
    return out;
  }

  /** A file that cannot be read: why (at which line), and the problems found before that. */
  private unreadableChildren(s: StoreSession): TreeNode[] {
    const r = this.tree.lib.peek(this.file);
    const rejection = r && !r.ok ? r.rejection : s.summary.ok ? null : s.summary.rejection;
    const diagnostics = r && !r.ok ? r.diagnostics : s.summary.ok ? [] : s.summary.diagnostics;
    const out: TreeNode[] = [];
    if (rejection) {
      out.push(
        this.tree.intern(
          new InfoNode(`${this.id}/rejected`, this, this.tree, {
            text: vscode.l10n.t("Not readable: {0}", rejection.message),
            tooltip: vscode.l10n.t(
              "{0}, line {1}: {2} ({3})",
              this.file,
              rejection.line,
              rejection.message,
              rejection.code,
            ),
            icon: "error",
            file: this.file,
            line: rejection.line,
          }),
        ),
      );
    }
    if (diagnostics.length) out.push(problemsNode(this, this.tree, diagnostics));
    return out;
  }

  getTreeItem(): vscode.TreeItem {
    const s = this.tree.lib.get(this.file);
    const item = new vscode.TreeItem(basename(this.file), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    if (!s) return item;
    const sum = s.summary;
    const live = Date.now() - lastWritten(s) < LIVE_MS;
    if (live) this.tree.markLive(s.file);
    const flags: SessionFlag[] = [];
    if (!sum.ok) {
      const reason = truncate(sum.rejection.message, 60);
      item.description = sum.rejection.line
        ? vscode.l10n.t("not readable · line {0}: {1}", sum.rejection.line, reason)
        : vscode.l10n.t("not readable · {0}", reason);
      item.iconPath = new vscode.ThemeIcon("error", new vscode.ThemeColor("list.errorForeground"));
      flags.push("rejected");
    } else {
      item.label = sum.partial && !sum.name && !sum.firstPrompt ? basename(s.file) : this.rowLabel(s);
      // What tells rows apart first (time, cost); the model and, under its parent, the lineage are in the tooltip.
      const parts = [relativeTime(lastActivity(s))];
      const lineage = this.tree.forkDisplay === "flat" || s.parentState !== "resolved" ? lineageText(s) : null;
      if (lineage) parts.unshift(lineage);
      if (addsNoPrompt(s)) parts.unshift(vscode.l10n.t("no new prompt"));
      parts.push(sum.partial ? "reading…" : formatCost(ownCost(s)));
      if (live) parts.unshift("● live");
      const archived = this.tree.marks.isArchived(s);
      if (archived) parts.unshift(vscode.l10n.t("archived"));
      if (this.tree.forkDisplay === "nested") {
        const families = this.tree.lib.families();
        const forks = families.forkCount(s);
        if (forks) parts.push(forksBelowText(forks, families.forks(s).length));
      }
      item.description = parts.join(" · ");
      flags.push(sum.flavor);
      let icon = "comment-discussion";
      let color = sum.flavor === "omp" ? "charts.orange" : "charts.blue";
      if (s.parentState !== "none") {
        icon = "repo-forked";
        flags.push("fork");
        if (s.parentState !== "resolved") {
          flags.push(s.parentState);
          color = "list.warningForeground";
        } else color = "charts.purple";
      }
      if (sum.subagent) icon = "hubot";
      if (live) {
        icon = "pulse";
        color = "charts.green";
        flags.push("live");
      }
      // A pin shows as the row's icon (its place at the top says the rest); live still wins.
      const pinned = this.tree.marks.isPinned(s);
      if (pinned && !live) icon = "pinned";
      item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
      if (sum.truncatedTail) flags.push("truncated");
      if (pinned) flags.push("pinned");
      if (archived) flags.push("archived");
    }
    item.contextValue = sessionContextValue(flags);
    const label = typeof item.label === "string" ? item.label : "";
    const pinnedWord = flags.includes("pinned") ? `${vscode.l10n.t("pinned")}, ` : "";
    item.accessibilityInformation = { label: `${pinnedWord}${label}, ${item.description ?? ""}` };
    return item;
  }

  /**
   * The row's label: the title cut at a word near `ROW_LABEL_MAX` characters. A fork without a prompt of its own is
   * named by where it forked ("after “…”"), with its time and place when a sibling fork was made after the same prompt.
   */
  private rowLabel(s: StoreSession): string {
    const sum = s.summary;
    if (!addsNoPrompt(s) || !sum.ok) return cutAtWord(displayTitle(s), ROW_LABEL_MAX);
    // A fork of a session with no prompt yet has nothing to be "after".
    if (!sum.lastPrompt?.trim()) return displayTitle(s);
    const after = vscode.l10n.t("after “{0}”", cutAtWord(sum.lastPrompt, ROW_LABEL_MAX - 12));
    const twins = s.parent ? promptlessTwins(this.tree.lib.families(), s.parent).get(sum.lastPrompt) : undefined;
    if (!twins || twins.length < 2) return after;
    // Twins are often made in the same minute, even the same second: their time, then their place among them.
    return `${after} · ${formatTimeOfDay(sum.created)} #${twins.indexOf(s) + 1}`;
  }

  override resolveTreeItem(item: vscode.TreeItem): vscode.TreeItem {
    if (!item.tooltip) {
      const s = this.tree.lib.get(this.file);
      if (s) item.tooltip = sessionTooltip(s);
    }
    return item;
  }
}

/** Where a fork or subagent came from, first in its description; null for any other session. */
function lineageText(s: StoreSession): string | null {
  const kind = childKind(s);
  if (!kind) return null;
  const parent = s.parent ? truncate(displayTitle(s.parent), 40) : null;
  if (parent) {
    if (kind === "subagent") return vscode.l10n.t("subagent of {0}", parent);
    return kind === "tan" ? vscode.l10n.t("/tan clone of {0}", parent) : vscode.l10n.t("fork of {0}", parent);
  }
  if (kind === "subagent") return vscode.l10n.t("subagent");
  if (s.parentState === "ambiguous") return vscode.l10n.t("fork (parent ambiguous)");
  if (s.parentState === "external") return vscode.l10n.t("fork of a session outside the roots");
  return vscode.l10n.t("orphan fork");
}

function sessionTooltip(s: StoreSession): vscode.MarkdownString {
  const md = untrustedMarkdown();
  const sum = s.summary;
  const row = (k: string, v: string) => {
    md.appendMarkdown(`**${k}:** `);
    md.appendText(v);
    md.appendMarkdown("  \n");
  };
  if (sum.ok) {
    md.appendMarkdown("**");
    md.appendText(truncate(displayTitle(s), 120));
    md.appendMarkdown("**\n\n");
    if (sum.parentSession && sum.firstPrompt) row(vscode.l10n.t("First prompt"), truncate(sum.firstPrompt, 120));
    row(vscode.l10n.t("Id"), sum.id);
    row(
      vscode.l10n.t("Agent"),
      vscode.l10n.t("{0} (v{1} file)", sum.flavor === "omp" ? "Oh My Pi" : "pi", sum.version),
    );
  }
  row(vscode.l10n.t("File"), s.file);
  if (sum.ok) {
    row(vscode.l10n.t("Cwd"), sum.cwd ?? vscode.l10n.t("(none)"));
    row(
      vscode.l10n.t("Created"),
      Number.isFinite(sum.created) ? formatDateTime(sum.created) : vscode.l10n.t("(unknown)"),
    );
  }
  if (sum.ok) {
    const lineage = lineageText(s);
    if (lineage) row(vscode.l10n.t("Lineage"), lineage);
    const last = lastActivity(s);
    row(vscode.l10n.t("Last active"), last > 0 ? formatDateTime(last) : vscode.l10n.t("(unknown)"));
  }
  row(vscode.l10n.t("Modified"), s.mtimeMs ? formatDateTime(s.mtimeMs) : vscode.l10n.t("(unknown)"));
  row(vscode.l10n.t("Size"), formatBytes(s.sizeBytes));
  if (sum.ok && sum.partial) {
    md.appendMarkdown(
      `\n*${vscode.l10n.t("Still reading this session: entries, branches, compactions and cost follow.")}*\n`,
    );
  } else if (sum.ok) {
    const inherited = s.inherited.size ? ` (${vscode.l10n.t("{0} inherited from the parent", s.inherited.size)})` : "";
    row(vscode.l10n.t("Entries"), `${sum.entries.length}${inherited}`);
    row(vscode.l10n.t("Branch points"), String(sum.branchPoints));
    // Direct forks and subagents apart, as the rows under the session list them.
    const subagents = s.children.filter((c) => c.summary.ok && c.summary.subagent).length;
    row(vscode.l10n.t("Forks"), String(s.children.length - subagents));
    if (subagents) row(vscode.l10n.t("Subagents"), String(subagents));
    row(vscode.l10n.t("Compactions"), String(sum.compactions));
    if (sum.model) row(vscode.l10n.t("Model"), sum.model);
    if (s.recap) row(vscode.l10n.t("Recap"), truncate(s.recap.text, 500));
    const note = s.inherited.size ? ` (${vscode.l10n.t("inherited turns count for the parent")})` : "";
    row(vscode.l10n.t("Cost"), vscode.l10n.t("{0} own", formatCost(ownCost(s))) + note);
    if (sum.parentSession)
      row(vscode.l10n.t("Forked from"), `${sum.parentSession.raw} (${parentStateText(s.parentState)})`);
    if (sum.truncatedTail)
      row(vscode.l10n.t("Last line"), vscode.l10n.t("incomplete (the agent is writing, or crashed)"));
    if (s.sameIdAs.length)
      row(
        vscode.l10n.t("Same session id as"),
        `${s.sameIdAs.map((o) => o.file).join(", ")} (${vscode.l10n.t("shared entries count once")})`,
      );
    if (sum.diagnostics.length) row(vscode.l10n.t("Problems"), String(sum.diagnostics.length));
  } else {
    const { line, message } = sum.rejection;
    row(vscode.l10n.t("Not readable"), line > 0 ? vscode.l10n.t("line {0}: {1}", line, message) : message);
  }
  return md;
}

/** Per family index (rebuilt on every change) and parent: its forks that add no prompt, by the last prompt they
 * copied, oldest first. Grouped once per parent, so naming k such forks costs k, not k². */
const promptlessTwinsOf = new WeakMap<FamilyIndex, Map<StoreSession, Map<string, StoreSession[]>>>();
function promptlessTwins(families: FamilyIndex, parent: StoreSession): Map<string, StoreSession[]> {
  let byParent = promptlessTwinsOf.get(families);
  if (!byParent) promptlessTwinsOf.set(families, (byParent = new Map()));
  let twins = byParent.get(parent);
  if (!twins) {
    twins = new Map();
    const forks = families.forks(parent).filter((o) => addsNoPrompt(o) && o.summary.ok);
    forks.sort((a, b) => (a.summary.ok && b.summary.ok ? a.summary.created - b.summary.created : 0));
    for (const o of forks) {
      const key = (o.summary.ok && o.summary.lastPrompt) || "";
      const list = twins.get(key) ?? [];
      list.push(o);
      twins.set(key, list);
    }
    byParent.set(parent, twins);
  }
  return twins;
}
