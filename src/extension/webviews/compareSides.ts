/**
 * The two sides of a branch comparison panel, from its state: `file` at `entryId` and `otherFile` (the same file when
 * absent) at `otherEntryId` (each session's active leaf when absent). Also the diff of both sides' final texts.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import type { PanelStateOf } from "../../protocol/messages.js";
import { truncate } from "../../protocol/format.js";
import type { CompareEnd } from "../../node/views/compare.js";
import {
  answerOf,
  COMPARE_OFF_THREAD_BYTES,
  type CompareAnswer,
  compareInWorker,
  type CompareQuestion,
  sideRoles,
} from "../../node/views/compareWork.js";
import type { SessionService } from "../service.js";
import type { DiffTexts } from "./diffTexts.js";
import { displayTitle } from "../titles.js";

async function end(service: SessionService, file: string, leafId: string | undefined) {
  const s = service.resolve(file);
  const session = await service.open(file);
  const leaf = leafId ?? session.leafId;
  if (leaf !== null && !session.byId.has(leaf))
    throw new Error(vscode.l10n.t("{0} has no entry {1}", basename(file), leaf));
  return { s, session, leafId: leaf };
}

export async function compareEnds(
  service: SessionService,
  state: PanelStateOf<"compare">,
): Promise<[CompareEnd, CompareEnd]> {
  await service.ensureStarted();
  if (!state.file) throw new Error(vscode.l10n.t("no session given"));
  const a = await end(service, state.file, state.entryId);
  const b = await end(service, state.otherFile ?? state.file, state.otherEntryId);
  const [roleA, roleB] = sideRoles(a, b);
  const toEnd = (x: typeof a, role: CompareEnd["role"]): CompareEnd => ({
    file: x.s.file,
    title: displayTitle(x.s),
    session: x.session,
    leafId: x.leafId,
    role,
  });
  return [toEnd(a, roleA), toEnd(b, roleB)];
}

/**
 * A question about two sides (the panel's model, or the final texts of one file): answered here for a small pair, in a
 * worker thread for one over `COMPARE_OFF_THREAD_BYTES` (its work grows with the calls and edits).
 */
export async function compareAnswer(
  service: SessionService,
  a: CompareEnd,
  b: CompareEnd,
  question: CompareQuestion,
): Promise<CompareAnswer & { ok: true }> {
  const bytes = (service.lib.get(a.file)?.sizeBytes ?? 0) + (service.lib.get(b.file)?.sizeBytes ?? 0);
  const spec = ({ session: _session, ...rest }: CompareEnd) => rest;
  const answer =
    bytes <= COMPARE_OFF_THREAD_BYTES
      ? answerOf(question, a, b)
      : await compareInWorker(service.compareWorker, { ...question, sides: [spec(a), spec(b)] });
  if (!answer.ok) throw new Error(answer.message);
  return answer;
}

/** "Diff final texts": what each side leaves in `path`, side A on the left. */
export async function diffFinalTexts(
  service: SessionService,
  diffs: DiffTexts,
  state: PanelStateOf<"compare">,
  path: string,
): Promise<void> {
  const [a, b] = await compareEnds(service, state);
  const answer = await compareAnswer(service, a, b, { kind: "finalTexts", path });
  if (!("texts" in answer)) throw new Error(vscode.l10n.t("the compare worker answered another question"));
  const [left, right] = answer.texts;
  if (left === null || right === null)
    throw new Error(
      vscode.l10n.t("The final text of {0} is not known on both sides (it needs a write)", basename(path)),
    );
  const title = vscode.l10n.t(
    "{0} — {1} ↔ {2}",
    basename(path),
    truncate(a.title, 30),
    truncate(b.title === a.title ? (b.leafId ?? "") : b.title, 30),
  );
  await diffs.open(left, right, title, path);
}
