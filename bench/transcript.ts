/**
 * Bench rows of the transcript view (issue #16), in a real Chromium page running the built page script
 * (dist/webview/transcript.js) against the host's TranscriptDocument over the large session, through the same
 * messages the extension exchanges with its webview:
 *  - the first message to the page: its size (bound 256 KB);
 *  - the first screen, after the session is parsed (bound 300 ms): the host's work (plan the branch, build the first
 *    chunk) plus the page's (from receiving it to the frame after its rows are laid out, by User Timing marks); the
 *    harness's own transport (Playwright calls, slower than a webview's postMessage) and the page's script load are
 *    reported apart;
 *  - scrolling from the end to the root and back in 82 jumps, every compaction opened: the most work the page does in
 *    one frame (scripts + rendering, Long Animation Frame timing; bound 50 ms), and the longest interval between
 *    frames, which in headless Chromium without a GPU also holds software raster.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { Session } from "../src/core/session/index.js";
import { TranscriptDocument } from "../src/node/views/transcript.js";
import type { ToTranscript } from "../src/protocol/transcript.js";
// @ts-expect-error: a plain ES module of the test scripts, without types.
import { chromiumPath } from "../scripts/vscode/browser.mjs";
import { ms, type Row } from "./row.js";

export interface TranscriptFigures {
  firstMessageBytes: number;
  firstScreenMs: number;
  hostMs: number;
  /** Loading the page script until it says "ready" (VS Code's part of opening a webview is not included). */
  pageBootMs: number;
  /** In the page: from receiving the first message to the frame after its rows are on screen. */
  pageMs: number;
  /** The longest interval between animation frames while scrolling (headless software raster included). */
  longestFrameMs: number;
  /** The most work the page did in one frame (scripts + style, layout and paint), from Long Animation Frame timing:
   * 0 when no frame took over 50 ms. */
  longestWorkMs: number;
  frames: number;
  rows: number;
}

/**
 * Run in the page (a string: the bench runs under tsx, whose helpers do not exist in the page): scroll from the end
 * to the root and back in jumps, recording the gaps between animation frames.
 */
const SCROLL = `(async () => {
  const sc = document.querySelector(".scroller");
  const gaps = [];
  let last = performance.now();
  let running = true;
  const tick = (t) => { gaps.push(t - last); last = t; if (running) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  // Frames over 50 ms, with what the page did in them: scripts, and the rendering update (style, layout, paint).
  const work = [];
  const observer = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      const scripts = (e.scripts || []).reduce((n, x) => n + x.duration, 0);
      work.push(scripts + (e.renderStart ? e.startTime + e.duration - e.renderStart : 0));
    }
  });
  observer.observe({ type: "long-animation-frame" });
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i <= 40; i++) { sc.scrollTop = (sc.scrollHeight - sc.clientHeight) * (1 - i / 40); await wait(40); }
  for (let i = 0; i <= 40; i++) { sc.scrollTop = (sc.scrollHeight - sc.clientHeight) * (i / 40); await wait(40); }
  running = false;
  await wait(100);
  observer.disconnect();
  // The first gap spans the start of the loop, not a frame.
  return { longestGap: Math.max(...gaps.slice(1)), longestWork: Math.max(0, ...work), frames: gaps.length - 1 };
})()`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function once(root: string, session: Session): Promise<TranscriptFigures> {
  const browser = await chromium.launch({ executablePath: chromiumPath() as string, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    let doc: TranscriptDocument | null = null;
    let firstMessageBytes = 0;
    let hostMs = 0;
    let pageBoot = 0;
    let pageMs = 0;
    let t0 = 0;
    let ready = 0;
    let firstScreen = 0;
    const toPage = (m: ToTranscript) =>
      page.evaluate(
        (msg) => (globalThis as unknown as { postMessage(m: unknown, o: string): void }).postMessage(msg, "*"),
        m,
      );
    await page.exposeFunction("__toHost", async (m: { type: string; [k: string]: unknown }) => {
      if (m.type === "ready") {
        const h0 = performance.now();
        ready = h0;
        doc = new TranscriptDocument(session, undefined, undefined);
        // The worst case: every compaction opened, so the whole path is rows.
        for (const id of doc.plan.compactions.keys()) doc.expanded.add(id);
        doc.rebuild();
        const first = doc.firstChunk(null);
        const msg: ToTranscript = {
          type: "reset",
          seq: 1,
          header: doc.header(),
          start: first.start,
          rows: first.rows,
          anchor: null,
          highlight: null,
        };
        firstMessageBytes = Buffer.byteLength(JSON.stringify(msg));
        hostMs = performance.now() - h0;
        await toPage(msg);
      } else if (m.type === "fetch" && doc) {
        const start = m.start as number;
        await toPage({ type: "rows", seq: 1, start, rows: doc.rows(start, Math.min(m.end as number, start + 200)) });
      } else if (m.type === "rendered" && !firstScreen && ((m.facts as { rendered: number }).rendered ?? 0) > 0) {
        firstScreen = performance.now() - ready;
        pageBoot = ready - t0;
      }
    });
    const css = ["webview.css", "transcript.css"].map((f) => readFileSync(join(root, "media", f), "utf8")).join("\n");
    t0 = performance.now();
    await page.setContent(
      `<!DOCTYPE html><html><head><style>${css}</style></head><body>` +
        `<div id="bootstrap" data-l10n="{}"></div><main id="root"></main>` +
        `<script>window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), ` +
        `setState() {}, getState() { return undefined; } });</script></body></html>`,
    );
    await page.addScriptTag({ content: readFileSync(join(root, "dist", "webview", "transcript.js"), "utf8") });
    for (let i = 0; i < 200 && !firstScreen; i++) await page.waitForTimeout(10);
    // Scroll from the end to the root and back; record the gaps between animation frames.
    await page.waitForTimeout(100);
    const marks = (await page.evaluate(
      'Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime]))',
    )) as Record<string, number>;
    pageMs = marks["transcript:first-screen"]! - marks["transcript:reset"]!;
    const scroll = (await page.evaluate(SCROLL)) as { longestGap: number; longestWork: number; frames: number };
    return {
      firstMessageBytes,
      firstScreenMs: firstScreen,
      hostMs,
      pageBootMs: pageBoot,
      pageMs,
      longestFrameMs: scroll.longestGap,
      longestWorkMs: scroll.longestWork,
      frames: scroll.frames,
      rows: doc ? (doc as TranscriptDocument).plan.rows.length : 0,
    };
  } finally {
    await browser.close();
  }
}

/** Medians of `runs` runs, each in a fresh browser. */
async function benchTranscript(root: string, session: Session, runs: number): Promise<TranscriptFigures> {
  const all: TranscriptFigures[] = [];
  for (let i = 0; i < runs; i++) all.push(await once(root, session));
  const pick = (k: keyof TranscriptFigures) => median(all.map((f) => f[k]));
  return {
    firstMessageBytes: pick("firstMessageBytes"),
    firstScreenMs: pick("firstScreenMs"),
    hostMs: pick("hostMs"),
    pageBootMs: pick("pageBootMs"),
    pageMs: pick("pageMs"),
    longestFrameMs: pick("longestFrameMs"),
    longestWorkMs: pick("longestWorkMs"),
    frames: pick("frames"),
    rows: pick("rows"),
  };
}

/** Rows 16 of `npm run bench` for the transcript view: the figures against their goals. */
export async function transcriptRows(root: string, session: Session, runs: number): Promise<Row[]> {
  const f = await benchTranscript(root, session, runs);
  return [
    {
      n: 16,
      measure: `transcript: first message to the page (branch of ${f.rows} rows)`,
      value: `${(f.firstMessageBytes / 1024).toFixed(0)} KB`,
      baseline: "",
      ratio: "",
      goal: "≤ 256 KB",
      met: f.firstMessageBytes <= 256 * 1024,
    },
    {
      n: 16,
      measure: "transcript: first screen after the parse (host + page)",
      value: `${ms(f.hostMs + f.pageMs)} ms`,
      baseline:
        `host ${ms(f.hostMs)} + page ${ms(f.pageMs)} ms; ` +
        `harness wall ${ms(f.firstScreenMs)} ms, page load ${ms(f.pageBootMs)} ms`,
      ratio: "",
      goal: "≤ 300 ms",
      met: f.hostMs + f.pageMs <= 300,
    },
    {
      n: 16,
      measure: "transcript: scroll end → root → end in 82 jumps, most work in one frame",
      value: `${ms(f.longestWorkMs)} ms`,
      baseline: `${f.frames} frames; longest frame interval ${ms(f.longestFrameMs)} ms (software raster)`,
      ratio: "",
      goal: "≤ 50 ms",
      met: f.longestWorkMs <= 50,
    },
  ];
}
