// The real Oh My Pi 18.2.3, run under the Bun it needs, answering for the tests (test/support/omp.ts starts it).
// Reads one JSON request on stdin and writes one JSON answer on stdout. Every answer is computed by OMP's own code:
//   {op: "names", files}            per file (opened from a temporary copy: OMP's loader may rewrite a file):
//                                    getSessionName(), titleSource, the title slot OMP's loader read, and
//                                    getLabel() of every entry.
//   {op: "pins", agentDir}          loadPinnedSessionIds(agentDir), sorted.
//   {op: "togglePins", agentDir, ids, gapMs?}  toggleSessionPin(id, agentDir) for each id in turn (under OMP's own
//                                    lock), `gapMs` apart; answers the pinned state after each toggle.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.join(import.meta.dirname, "node_modules", "@oh-my-pi", "pi-coding-agent", "src", "session");
const { SessionManager } = await import(path.join(ROOT, "session-manager.ts"));
const { loadSessionFile } = await import(path.join(ROOT, "session-loader.ts"));
const { loadPinnedSessionIds, toggleSessionPin } = await import(path.join(ROOT, "session-pins.ts"));

async function namesOf(file) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "omp-oracle-"));
  try {
    const copy = path.join(work, path.basename(file));
    fs.copyFileSync(file, copy);
    const loaded = await loadSessionFile(copy);
    const sm = await SessionManager.open(copy, work, undefined, { suppressBreadcrumb: true });
    const labels = {};
    for (const e of sm.getEntries()) {
      const label = sm.getLabel(e.id);
      if (label) labels[e.id] = label;
    }
    const answer = {
      file,
      name: sm.getSessionName() ?? null,
      titleSource: sm.titleSource ?? null,
      titleSlot: loaded.titleSlot ?? null,
      labels,
    };
    await sm.close();
    return answer;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const request = JSON.parse(await new Response(Bun.stdin.stream()).text());
let answer;
if (request.op === "names") {
  answer = [];
  for (const file of request.files) answer.push(await namesOf(file));
} else if (request.op === "pins") {
  answer = [...(await loadPinnedSessionIds(request.agentDir))].sort();
} else if (request.op === "togglePins") {
  answer = [];
  for (const id of request.ids) {
    answer.push(await toggleSessionPin(id, request.agentDir));
    if (request.gapMs) await Bun.sleep(request.gapMs);
  }
} else throw new Error(`unknown op ${request.op}`);
process.stdout.write(JSON.stringify(answer));
