/**
 * The Usage & Cost dashboard's Team scope: where its numbers come from and when they were read, what to do when no
 * database is set or it cannot be read now (the last good numbers stay, with their time), and each machine's share.
 */
import { formatDateTime, formatRowCost } from "../protocol/format.js";
import type { DashboardModel, TeamFacts } from "../protocol/views.js";
import { action, cost, h, section, table, tokens } from "./common.js";
import * as l10n from "@vscode/l10n";

type Machine = TeamFacts["machines"][number];

/** The line under the title: the database, when it was read, and Sync Now; or why there are no current numbers. */
export function teamNotice(m: DashboardModel): HTMLElement | "" {
  const t = m.team;
  if (!t) return "";
  const sync = action(l10n.t("Sync Now"), { type: "team", action: "sync" }, l10n.t("Send this machine's usage"));
  if (t.unset)
    return h(
      "p",
      { class: "empty", id: "team-unset", role: "status" },
      l10n.t("No team database is set. Sessions of every machine show here once each machine syncs to one."),
      " ",
      action(l10n.t("Set Team Database…"), { type: "team", action: "setDatabase" }),
    );
  if (t.error)
    return h(
      "p",
      { class: "error", id: "team-error", role: "alert" },
      t.asOf
        ? l10n.t(
            "Could not read {0} now ({1}). These are its numbers as read {2}.",
            t.database,
            t.error,
            formatDateTime(t.asOf),
          )
        : l10n.t("Could not read {0} ({1}).", t.database, t.error),
      " ",
      action(l10n.t("Set Team Database…"), { type: "team", action: "setDatabase" }),
    );
  return h(
    "p",
    { class: "muted", id: "team-source" },
    l10n.t("From {0}, read {1}.", t.database, formatDateTime(t.asOf)),
    " ",
    sync,
  );
}

/** Each machine's usage and when it last synced. */
export function machinesSection(m: DashboardModel): HTMLElement | "" {
  const machines = m.team?.machines ?? [];
  if (!machines.length) return "";
  return section(
    l10n.t("By machine"),
    table<Machine>(
      l10n.t("Cost by machine"),
      [
        { title: l10n.t("Machine"), value: (r) => r.label },
        { title: l10n.t("Last sync"), value: (r) => (r.lastSync ? formatDateTime(r.lastSync) : "") },
        { title: l10n.t("Cost"), value: (r) => formatRowCost(r), numeric: true },
        { title: l10n.t("Input"), value: (r) => tokens(r.input), numeric: true },
        { title: l10n.t("Output"), value: (r) => tokens(r.output), numeric: true },
        { title: l10n.t("Cache read"), value: (r) => tokens(r.cacheRead), numeric: true },
        { title: l10n.t("Messages"), value: (r) => r.messages, numeric: true },
      ],
      machines,
    ),
    h(
      "span",
      { class: "exports" },
      action(l10n.t("Export CSV"), { type: "export", format: "csv", table: "machines" }),
      " ",
      action(l10n.t("Export JSON"), { type: "export", format: "json", table: "machines" }),
    ),
    h(
      "p",
      { class: "muted" },
      l10n.t(
        "A turn two machines carry (a fork's copied turns, a copied session) counts once, for the machine whose " +
          "own session wrote it.",
      ),
    ),
  );
}

/** What the page reports of the Team scope (for tests and the log). */
export function teamFacts(m: DashboardModel): Record<string, string | number | boolean> {
  const t = m.team;
  if (!t) return {};
  return {
    teamMachines: t.machines.map((x) => x.label).join(","),
    teamMachineCosts: t.machines.map((x) => cost(x.cost)).join(","),
    teamError: t.error ?? "",
    teamUnset: t.unset === true,
  };
}
