/**
 * The search results page: the query, the scope and the roles as controls, and the hits grouped by session. The host
 * searches; this page only renders what it sends (snippets as text, the matched terms as <mark>) and says what was
 * clicked.
 */
import "./translations.js";
import * as l10n from "@vscode/l10n";
import {
  type FromSearchPage,
  SEARCH_ROLES,
  type SearchResultGroup,
  type SearchResultHit,
  type SearchRole,
  type SearchState,
  type ToSearchPage,
} from "../protocol/search.js";
import { h, mount } from "./dom.js";
import { snippetPlainText } from "../protocol/markdown.js";
import { formatDateTime } from "../protocol/format.js";

const vscode = acquireVsCodeApi<SearchState>();
const bootState = JSON.parse(document.getElementById("bootstrap")?.dataset.state ?? "{}") as SearchState;
let state: SearchState = { ...bootState, ...(vscode.getState() ?? {}) };
const send = (m: FromSearchPage) => vscode.postMessage(m);

/** Typing is searched this long after the last key. */
const DEBOUNCE_MS = 250;

const ROLE_NAMES: Record<SearchRole, () => string> = {
  user: () => l10n.t("Prompts"),
  assistant: () => l10n.t("Replies"),
  thinking: () => l10n.t("Thinking"),
  tool: () => l10n.t("Tools"),
  summary: () => l10n.t("Summaries"),
  meta: () => l10n.t("Names and labels"),
  custom: () => l10n.t("Custom messages"),
  system: () => l10n.t("System prompts"),
};

/** The snippet with the terms between « and » as <mark>. */
function snippet(text: string): HTMLElement {
  const out = h("span", { class: "snippet" });
  let marked = false;
  // Plain text: a snippet's Markdown marks (##, **, `) say nothing cut out of their message.
  for (const part of snippetPlainText(text).split(/([«»])/)) {
    if (part === "«") marked = true;
    else if (part === "»") marked = false;
    else if (part) out.append(marked ? h("mark", {}, part) : part);
  }
  return out;
}

function hitRow(group: SearchResultGroup, hit: SearchResultHit): HTMLElement {
  const when = hit.timestamp ? formatDateTime(hit.timestamp) : "";
  const role = hit.tool ? `${ROLE_NAMES[hit.role]()} · ${hit.tool}` : ROLE_NAMES[hit.role]();
  const button = h(
    "button",
    { class: "hit", type: "button", title: l10n.t("Open the transcript at this entry") },
    h("span", { class: `role role-${hit.role}` }, role),
    snippet(hit.snippet),
    h(
      "span",
      { class: "muted meta" },
      [
        when,
        hit.active ? "" : (hit.branch ?? l10n.t("off the active branch")),
        hit.alsoIn ? (hit.alsoIn === 1 ? l10n.t("also in 1 fork") : l10n.t("also in {0} forks", hit.alsoIn)) : "",
      ]
        .filter(Boolean)
        .join(" · "),
    ),
  );
  button.addEventListener("click", () => send({ type: "open", file: group.file, entryId: hit.entryId }));
  return h("li", {}, button);
}

function renderGroups(m: ToSearchPage): HTMLElement {
  if (m.problem) return h("p", { class: "error", role: "alert" }, m.problem);
  if (!m.state.text.trim()) return h("p", { class: "muted" }, l10n.t("Type words to search every session."));
  if (!m.groups.length) {
    const text = m.suggestion;
    if (!text) return h("p", { class: "muted", id: "no-match" }, l10n.t("No match."));
    const tryIt = h("button", { type: "button", class: "link", id: "suggestion" }, text);
    tryIt.addEventListener("click", () => {
      query.value = text;
      search();
    });
    return h(
      "p",
      { class: "muted", id: "no-match" },
      l10n.t("No match. Search for the beginning of the word: "),
      tryIt,
    );
  }
  return h(
    "div",
    { id: "groups" },
    ...m.groups.map((g) =>
      h(
        "section",
        { class: "group" },
        h(
          "h2",
          { title: g.file },
          h("span", { class: "title" }, g.title),
          h(
            "span",
            { class: "muted" },
            ` ${g.project} · ${g.hits.length === 1 ? l10n.t("1 hit") : l10n.t("{0} hits", g.hits.length)}`,
          ),
        ),
        h("ul", {}, ...g.hits.map((hit) => hitRow(g, hit))),
      ),
    ),
  );
}

function summary(m: ToSearchPage): string {
  const parts: string[] = [];
  if (m.state.text.trim() && !m.problem)
    parts.push(
      m.total === 1
        ? l10n.t("1 hit in 1 session")
        : m.groups.length === 1
          ? l10n.t("{0} hits in 1 session", m.total)
          : l10n.t("{0} hits in {1} sessions", m.total, m.groups.length),
    );
  parts.push(l10n.t("{0} sessions indexed in all projects", m.index.sessions));
  if (m.index.pending) parts.push(l10n.t("indexing: {0} sessions to go; results so far", m.index.pending));
  else if (m.index.building) parts.push(l10n.t("indexing; results so far"));
  if (m.index.readOnly) parts.push(l10n.t("another window is updating the index"));
  return parts.join(" · ");
}

const root = document.getElementById("root")!;
const query = h("input", {
  id: "query",
  type: "search",
  value: state.text,
  "aria-label": l10n.t("Search session content"),
  placeholder: l10n.t('Words, "a phrase", prefix*, -exclude, role:user, tool:bash'),
});
const scope = h(
  "select",
  { id: "scope", "aria-label": l10n.t("Scope") },
  h("option", { value: "workspace" }, l10n.t("This workspace")),
  h("option", { value: "all" }, l10n.t("All projects")),
);
scope.value = state.scope;
const boxes = SEARCH_ROLES.map((role) => {
  const box = h("input", { type: "checkbox", value: role, id: `role-${role}` });
  box.checked = state.roles.includes(role);
  return { role, box, label: h("label", { for: `role-${role}` }, box, ROLE_NAMES[role]()) };
});
const status = h("p", { class: "muted", id: "summary", "aria-live": "polite" });
const results = h("div", { id: "results" });

function search(): void {
  state = {
    text: query.value,
    scope: scope.value === "all" ? "all" : "workspace",
    roles: boxes.filter((b) => b.box.checked).map((b) => b.role),
  };
  vscode.setState(state);
  send({ type: "search", state });
}

let timer: ReturnType<typeof setTimeout> | undefined;
query.addEventListener("input", () => {
  clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    search();
  }, DEBOUNCE_MS);
});
scope.addEventListener("change", search);
for (const b of boxes) b.box.addEventListener("change", search);

mount(
  root,
  h(
    "header",
    { class: "search-bar" },
    h("div", { class: "row" }, query, scope),
    h("fieldset", { class: "roles" }, h("legend", {}, l10n.t("Search in")), ...boxes.map((b) => b.label)),
  ),
  status,
  results,
);

window.addEventListener("message", (event: MessageEvent<ToSearchPage>) => {
  const m = event.data;
  if (m?.type !== "results") return;
  // The host's state is what was searched (a new query from the quick pick, or the panel shown again): the controls
  // show it, unless the reader is typing a newer one.
  if (timer === undefined || m.state.text === query.value) {
    state = m.state;
    vscode.setState(state);
    if (document.activeElement !== query) query.value = state.text;
    scope.value = state.scope;
    for (const b of boxes) b.box.checked = state.roles.includes(b.role);
  }
  status.textContent = summary(m);
  mount(results, renderGroups(m));
  document.body.dataset.hits = String(m.total);
});
query.focus();
send({ type: "ready" });
