/**
 * Compare Branches off the extension host's thread: a large pair of sessions is compared in a worker thread (the
 * summary worker's bundle, dist/summaryWorker.cjs, started with `{ compare }`), which reads both files itself and
 * answers with the panel's model, or with what both sides leave in one file (Diff Final Texts). The host keeps small
 * pairs, whose work is shorter than a worker's start. Plain Node (no `vscode`), so that tests drive it as the
 * extension does.
 */
import { Worker } from "node:worker_threads";
import { compareBranches } from "../../core/compare.js";
import type { CompareModel } from "../../protocol/views.js";
import type { Session } from "../../core/session/index.js";
import { readSessionFile } from "../readSession.js";
import type { StoreSession } from "../store/index.js";
import { type CompareEnd, compareModel, finalTextOf } from "./compare.js";

/** Both sessions together larger than this are compared in a worker (a few MB of crafted calls took seconds). */
export const COMPARE_OFF_THREAD_BYTES = 4 * 1024 * 1024;

/** One side as the host names it: the worker reads the file again and checks the leaf is still there. */
export type CompareSideSpec = Omit<CompareEnd, "session">;

/** What is asked of two sides: the panel's model, or what each leaves in one file. */
export type CompareQuestion = { kind: "model"; home?: string } | { kind: "finalTexts"; path: string; home?: string };

export type CompareWork = CompareQuestion & { sides: [CompareSideSpec, CompareSideSpec] };

export type CompareAnswer =
  | { ok: true; model: CompareModel }
  | { ok: true; texts: [string | null, string | null] }
  | { ok: false; message: string };

async function sideOf(spec: CompareSideSpec): Promise<CompareEnd> {
  const r = await readSessionFile(spec.file, { validate: false });
  if (!r.ok) throw new Error(`${spec.file}: line ${r.rejection.line}: ${r.rejection.message}`);
  if (spec.leafId !== null && !r.session.byId.has(spec.leafId))
    throw new Error(`${spec.file} has no entry ${spec.leafId} now (it changed while it was compared)`);
  return { ...spec, session: r.session };
}

/** The answer to `work`'s question over two sides already read (the host's small pairs, and the worker). */
/** What a compared side opened from the store is: its session, its listing, and the leaf compared. */
export interface StoredSide {
  s: StoreSession;
  session: Session;
  leafId: string | null;
}

/**
 * Each side's role, as the panel and `compare` name them: two leaves of one session are the active one and a branch;
 * a fork and the parent the store linked it to are "fork" and "parent"; anything else is a branch.
 */
export function sideRoles(a: StoredSide, b: StoredSide): [CompareEnd["role"], CompareEnd["role"]] {
  const same = a.s.file === b.s.file;
  const role = (x: StoredSide, other: StoredSide): CompareEnd["role"] => {
    if (same) return x.leafId === x.session.leafId ? "active" : "branch";
    return x.s.parent?.file === other.s.file ? "fork" : other.s.parent?.file === x.s.file ? "parent" : "branch";
  };
  return [role(a, b), role(b, a)];
}

export function answerOf(work: CompareQuestion, a: CompareEnd, b: CompareEnd): CompareAnswer {
  if (work.kind === "model") return { ok: true, model: compareModel(a, b, work.home) };
  const c = compareBranches(a, b);
  const text = (i: 0 | 1) => finalTextOf(c.sides[i], [a, b][i]!.session, work.path, work.home);
  return { ok: true, texts: [text(0), text(1)] };
}

/** The work itself, wherever it runs (the worker calls it; tests call it to check the worker's answer). */
export async function doCompareWork(work: CompareWork): Promise<CompareAnswer> {
  try {
    return answerOf(work, await sideOf(work.sides[0]), await sideOf(work.sides[1]));
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/** Run `work` in a worker thread of its own (`workerFile`: the bundled dist/summaryWorker.cjs), then end it. */
export function compareInWorker(workerFile: string, work: CompareWork): Promise<CompareAnswer> {
  return new Promise((resolve) => {
    const worker = new Worker(workerFile, { workerData: { compare: work } });
    let answered = false;
    worker.once("message", (m: CompareAnswer) => {
      answered = true;
      resolve(m);
      void worker.terminate();
    });
    worker.once("error", (err) => {
      answered = true;
      resolve({ ok: false, message: `the compare worker failed: ${err.message}` });
    });
    worker.once("exit", (code) => {
      if (!answered) resolve({ ok: false, message: `the compare worker stopped (exit code ${code})` });
    });
  });
}
