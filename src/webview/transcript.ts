/**
 * The transcript view's page: a windowed list (@tanstack/virtual-core) over the rows of one branch. Only rows near the
 * viewport are in the DOM; rows are asked of the host in chunks as they come near, images one by one. The view follows
 * the tail when new entries arrive only if it was already at the bottom.
 */
import "./translations.js";
import * as l10n from "@vscode/l10n";
import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  type VirtualItem,
  Virtualizer,
} from "@tanstack/virtual-core";
import type {
  FromTranscript,
  ToTranscript,
  TranscriptHeader,
  TranscriptImage,
  TranscriptRow,
  TranscriptState,
} from "../protocol/transcript.js";
import { formatDateTime } from "../protocol/format.js";
import { h, mount } from "./dom.js";
import { Pi16Facts } from "./transcriptFacts.js";
import { imageElement, renderRow, type RowContext } from "./transcriptRows.js";

const vscode = acquireVsCodeApi<TranscriptState>();
/** What this view is about (the host's state); saved with where the reader is, for a revival after a reload. */
const bootState = JSON.parse(document.getElementById("bootstrap")?.dataset.state ?? "{}") as TranscriptState;

/** Rows asked for at once. */
const CHUNK = 50;
/** Built rows kept beyond the ones in view (rebuilding is what scrolling costs). */
const KEEP_BUILT = 400;

let seq = -1;
let header: TranscriptHeader | null = null;
const rows = new Map<number, TranscriptRow>();
const built = new Map<number, HTMLElement>();
const pi16 = new Pi16Facts();
const requested = new Set<number>();
/** Images the host sent, by `row:ref` (dropped with their row when it is evicted), and those asked for. */
const images = new Map<string, string | null>();
const askedImages = new Set<string>();
/** Placeholders of rows not built yet, kept so that each is measured once. */
const placeholders = new Map<number, HTMLElement>();
let highlight: string | null = null;

/** Image `ref` of a row (numbered in order: the message's, then each tool result's). */
function findImage(row: TranscriptRow & { kind: "item" }, ref: number): TranscriptImage | undefined {
  const item = row.item;
  const own = item.kind === "user" || item.kind === "toolResult" ? item.images : [];
  return [...own, ...row.results.flatMap((r) => r.images)].find((i) => i.ref === ref);
}

function post(message: FromTranscript): void {
  vscode.postMessage("seq" in message ? { ...message, seq: Math.max(0, seq) } : message);
}

const root = document.getElementById("root")!;
const title = h("h1", {});
const facts = h("p", { class: "muted" });
const recap = h("p", { class: "recap" });
const bar = h("div", { class: "bar" });
const scroller = h("div", { class: "scroller", role: "feed", "aria-busy": "true", tabindex: 0 });
const sizer = h("div", { class: "sizer" });
const list = h("div", { class: "rows" });
sizer.append(list);
scroller.append(sizer);
const errorBox = h("div", { role: "alert" });
mount(root, h("header", { class: "transcript-header" }, title, facts, recap, bar, errorBox), scroller);
root.removeAttribute("aria-live");

const ctx: RowContext = {
  send: post,
  image(row, ref) {
    const key = `${row}:${ref}`;
    if (!images.has(key) && !askedImages.has(key)) {
      askedImages.add(key);
      post({ type: "image", seq, row, ref });
    }
    return images.get(key);
  },
  open: new Set(),
  shownAll: new Set(),
  rerender(row) {
    built.delete(row);
    schedule();
  },
  count: () => virtualizer.options.count,
};

const virtualizer = new Virtualizer<HTMLElement, HTMLElement>({
  count: 0,
  getScrollElement: () => scroller,
  estimateSize: () => 120,
  overscan: 6,
  scrollToFn: elementScroll,
  observeElementRect,
  observeElementOffset,
  onChange: () => schedule(),
});
virtualizer._didMount();

let frame = 0;
let firstScreen = false;
function schedule(): void {
  if (!frame) frame = requestAnimationFrame(render);
}

/** Rows built per frame at most (a frame stays short when a jump brings a screenful of new rows). */
const BUILD_PER_FRAME = 8;
let buildBudget = BUILD_PER_FRAME;

function rowElement(index: number): HTMLElement {
  let el = built.get(index);
  if (el) {
    // Most recently used last: eviction drops the rows least recently shown.
    built.delete(index);
    built.set(index, el);
    return el;
  }
  const data = rows.get(index);
  if (data && buildBudget-- > 0) {
    el = renderRow(ctx, data);
    if (data.kind === "item" && data.item.entryId === highlight) el.classList.add("highlight");
    el.dataset.index = String(index);
    built.set(index, el);
    pi16.built(index, el);
    placeholders.delete(index);
    return el;
  }
  // Data here but over this frame's budget: built in the next frame.
  if (data) schedule();
  let p = placeholders.get(index);
  if (!p) {
    p = h("div", { class: "row placeholder", "aria-busy": "true", "data-index": index }, l10n.t("Loading…"));
    placeholders.set(index, p);
  }
  return p;
}

/** Forget built rows beyond the budget, least recently shown first, with their images. */
function evict(shown: Set<number>): void {
  for (const k of built.keys()) {
    if (built.size <= KEEP_BUILT / 2) break;
    if (shown.has(k)) continue;
    built.delete(k);
    for (const key of images.keys()) if (key.startsWith(`${k}:`)) images.delete(key);
    for (const key of askedImages) if (key.startsWith(`${k}:`)) askedImages.delete(key);
  }
  if (placeholders.size > KEEP_BUILT) placeholders.clear();
}

function request(items: VirtualItem[]): void {
  const missing = items.map((v) => v.index).filter((i) => !rows.has(i) && !requested.has(i));
  if (!missing.length) return;
  const start = Math.max(0, Math.min(...missing) - 10);
  const end = Math.min(virtualizer.options.count, Math.max(...missing) + CHUNK);
  for (let i = start; i < end; i++) requested.add(i);
  post({ type: "fetch", seq, start, end });
}

let reported = "";
let reportTimer: ReturnType<typeof setTimeout> | 0 = 0;
function render(): void {
  frame = 0;
  // The first screen after a reset is built at once: nothing is scrolling yet, and the reader is waiting for it.
  buildBudget = firstScreen ? Infinity : BUILD_PER_FRAME;
  virtualizer._willUpdate();
  const items = virtualizer.getVirtualItems();
  sizer.style.height = `${virtualizer.getTotalSize()}px`;
  list.style.transform = `translateY(${items[0]?.start ?? 0}px)`;
  const els = items.map((v) => rowElement(v.index));
  const before = new Set(list.children);
  if (els.length !== list.children.length || els.some((el, i) => list.children[i] !== el)) list.replaceChildren(...els);
  // Measured when inserted (the virtualizer stops observing an element that leaves the list, so a row put back is
  // measured again); its ResizeObserver follows later changes. Measuring every row every frame would force layouts.
  for (const el of els) if (!before.has(el)) virtualizer.measureElement(el);
  applyScroll();
  request(items);
  if (firstScreen && items.length && items.every((v) => built.has(v.index))) {
    firstScreen = false;
    // After this frame's layout: the rows are on screen.
    requestAnimationFrame(() => performance.mark("transcript:first-screen"));
  }
  if (built.size > KEEP_BUILT || placeholders.size > KEEP_BUILT) evict(new Set(items.map((v) => v.index)));
  scroller.setAttribute("aria-busy", String(items.some((v) => !built.has(v.index))));
  if (!reportTimer)
    reportTimer = setTimeout(
      () => {
        reportTimer = 0;
        report(virtualizer.getVirtualItems());
      },
      reported ? 100 : 0,
    );
}

/** From the virtualizer's own figures: reading the scroller's height would force a layout. */
function atBottom(): boolean {
  const height = virtualizer.scrollRect?.height ?? 0;
  return (virtualizer.scrollOffset ?? 0) + height >= virtualizer.getTotalSize() - 40;
}

/** What the page shows, for tests and the log (sent when it changes). */
function report(items: VirtualItem[]): void {
  const loaded = items.filter((v) => built.has(v.index));
  const entry = (v: VirtualItem | undefined) => {
    const r = v ? rows.get(v.index) : undefined;
    return r?.kind === "item" ? r.item.entryId : r ? "inherited" : "";
  };
  const f = {
    rows: virtualizer.options.count,
    rendered: loaded.length,
    first: entry(loaded[0]),
    last: entry(loaded[loaded.length - 1]),
    highlighted: document.querySelector(".row.highlight")?.getAttribute("data-entry") ?? "",
    atBottom: atBottom(),
    leafId: header?.leafId ?? "",
    activeLeaf: header?.activeLeaf ?? false,
    ...pi16.facts(),
  };
  const key = JSON.stringify(f);
  if (key === reported || !loaded.length) return;
  reported = key;
  vscode.setState({
    file: bootState.file,
    ...(header && !header.activeLeaf && header.leafId ? { leafId: header.leafId } : {}),
    ...(f.first && f.first !== "inherited" ? { top: f.first } : {}),
  });
  post({ type: "rendered", seq, facts: f });
}

function showHeader(hd: TranscriptHeader): void {
  header = hd;
  title.textContent = hd.title;
  const agent = hd.agent === "omp" ? l10n.t("Oh My Pi") : l10n.t("pi");
  facts.textContent = [
    agent,
    hd.cwd,
    l10n.t("{0} entries on this branch", hd.entries),
    // Why scrolling up stops at a compaction: what it replaced is behind its card (and Find in Transcript finds it).
    hd.replaced ? l10n.t("{0} earlier entries replaced by compactions", hd.replaced) : "",
    hd.activeLeaf ? l10n.t("ends at the active leaf ●") : l10n.t("not the active branch"),
  ]
    .filter(Boolean)
    .join(" · ");
  // Session text: set as text, never markup.
  recap.textContent = hd.recap
    ? l10n.t("Recap ({0}): {1}", formatDateTime(hd.recap.createdAt * 1000), hd.recap.text)
    : "";
  recap.hidden = !hd.recap;
  const parts: (HTMLElement | string)[] = [];
  if (hd.replaced) {
    // The top row is not the conversation's start: say so where the reader looks, with the way up.
    const show = h(
      "button",
      { type: "button", class: "link", id: "show-replaced" },
      l10n.t("Show them from the first prompt"),
    );
    show.addEventListener("click", () => post({ type: "showReplaced" }));
    parts.push(show, hd.fork ? " · " : "");
  }
  if (hd.fork) {
    parts.push(l10n.t("Fork of {0}", hd.fork.parentTitle), " · ");
    const open = h("button", { type: "button", class: "link" }, l10n.t("Open the parent at the fork point"));
    open.addEventListener("click", () => post({ type: "openParent" }));
    parts.push(open);
    if (hd.showInherited) {
      const hide = h("button", { type: "button", class: "link" }, l10n.t("Fold the inherited entries"));
      hide.addEventListener("click", () => post({ type: "toggleInherited" }));
      parts.push(" · ", hide);
    }
  }
  bar.replaceChildren(...parts);
}

/** Where the view must go: re-applied over a few frames, while the rows around it are measured and sizes settle. */
let pendingScroll: { index: number; align: "start" | "end"; frames: number } | null = null;

function scrollTo(anchor: number | null): void {
  const count = virtualizer.options.count;
  if (!count) return;
  pendingScroll = { index: anchor ?? count - 1, align: anchor === null ? "end" : "start", frames: 10 };
  // Go there now, on the estimates, so that the first frame renders the rows there (not the top's placeholders).
  sizer.style.height = `${virtualizer.getTotalSize()}px`;
  const offset = virtualizer.getOffsetForIndex(pendingScroll.index, pendingScroll.align)?.[0];
  if (offset !== undefined) scroller.scrollTop = offset;
  schedule();
}

function applyScroll(): void {
  if (!pendingScroll) return;
  const offset = virtualizer.getOffsetForIndex(pendingScroll.index, pendingScroll.align)?.[0];
  const moved = offset !== undefined && Math.abs(scroller.scrollTop - offset) > 1;
  if (moved) scroller.scrollTop = offset;
  // Done once the measured sizes stop moving it (or after a few frames, so that the reader can scroll).
  if (moved && --pendingScroll.frames > 0) schedule();
  else pendingScroll = null;
}

function setCount(count: number): void {
  virtualizer.setOptions({ ...virtualizer.options, count });
}

function store(start: number, list: TranscriptRow[]): void {
  list.forEach((r, i) => {
    rows.set(start + i, r);
    pi16.stored(start + i, r);
    built.delete(start + i);
  });
}

window.addEventListener("message", (event: MessageEvent<ToTranscript>) => {
  const msg = event.data;
  switch (msg.type) {
    case "error":
      // Shown above the rows; the next reset (the file became readable) clears it.
      errorBox.replaceChildren(h("p", { class: "error" }, msg.message));
      return;
    case "reset":
      performance.mark("transcript:reset");
      firstScreen = true;
      seq = msg.seq;
      rows.clear();
      pi16.clear();
      built.clear();
      requested.clear();
      images.clear();
      askedImages.clear();
      placeholders.clear();
      ctx.shownAll.clear();
      errorBox.replaceChildren();
      highlight = msg.highlight;
      showHeader(msg.header);
      store(msg.start, msg.rows);
      setCount(msg.header.rows);
      // Sizes measured for the previous rows say nothing about these.
      virtualizer.measure();
      list.replaceChildren();
      if (!msg.header.rows) list.append(h("p", { class: "muted" }, l10n.t("This branch has no entries yet.")));
      schedule();
      scrollTo(msg.anchor);
      return;
    case "rows":
      if (msg.seq !== seq) return;
      store(msg.start, msg.rows);
      schedule();
      return;
    case "append": {
      if (msg.seq !== seq) return;
      const follow = atBottom();
      showHeader(msg.header);
      for (const k of [...rows.keys()])
        if (k >= msg.start) {
          rows.delete(k);
          pi16.removed(k);
        }
      for (const k of [...requested]) if (k >= msg.start) requested.delete(k);
      for (const k of [...built.keys()]) if (k >= msg.start) built.delete(k);
      store(msg.start, msg.rows);
      setCount(msg.header.rows);
      schedule();
      if (follow) scrollTo(null);
      return;
    }
    case "image":
      if (msg.seq !== seq) return;
      images.set(`${msg.row}:${msg.ref}`, msg.src);
      // In place: rebuilding the row would ask again for the images it has not received yet.
      for (const el of built.get(msg.row)?.querySelectorAll(`[data-image="${msg.row}:${msg.ref}"]`) ?? []) {
        const data = rows.get(msg.row);
        const image = data?.kind === "item" ? findImage(data, msg.ref) : undefined;
        if (image) el.replaceWith(imageElement(msg.src, image, msg.row));
      }
      schedule();
      return;
    case "reveal":
      if (msg.seq !== seq) return;
      for (const el of document.querySelectorAll(".row.highlight")) el.classList.remove("highlight");
      highlight = msg.highlight;
      built.delete(msg.anchor);
      schedule();
      scrollTo(msg.anchor);
      return;
  }
});

// User Timing marks (bench/transcript.ts reads them): ready, each reset, and the first screen after a reset.
performance.mark("transcript:ready");
post({ type: "ready" });
