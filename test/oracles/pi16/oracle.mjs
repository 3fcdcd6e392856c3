// The real pi 1.6.0, run under the Node 22 it needs, answering for the tests (test/support/pi16.ts starts it).
// Reads one JSON request on stdin and writes one JSON answer on stdout. Every answer is computed by pi's own code:
//   {op: "read", files}           per file (opened from a temporary copy: pi's loader may append a newline):
//                                  context and projection at every entry and the active leaf, session stats,
//                                  the per-model usage breakdown.
//   {op: "prepare", files, keeps, leaves?}  per file, per entry (or per `leaves[file]`) and per
//                                  `keepRecentTokens`: pi's prepareCompaction of the branch ending there (null when
//                                  pi refuses).
//   {op: "names", files}          per file: pi's getSessionName() and getLabel() of every entry.
//   {op: "mcp", command, args, env, roots, calls}  pi's own MCP client (@earendil-works/pi-mcp, as pi 1.6 ships it)
//                                  starts the server, lists its tools and makes the calls; each answer as pi gives it
//                                  to the model (toLlmContent).
//   {op: "build", dir, programs}  writes one session per program through pi's SessionManager methods into dir,
//                                  then answers as "read" for each file written.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentSession, buildSessionProjection, SessionManager } from "@earendil-works/pi-coding-agent";
import { McpClient, StdioTransport, toLlmContent } from "@earendil-works/pi-mcp";

const PI = join(import.meta.dirname, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core");
const { getUsageCostBreakdown } = await import(pathToFileURL(join(PI, "usage-totals.js")).href);
const { prepareCompaction } = await import(pathToFileURL(join(PI, "compaction", "compaction.js")).href);

function projectionAt(entries, leafId) {
  const p = buildSessionProjection(entries, leafId);
  return {
    entries: p.entries.map((e) => ({ id: e.sourceEntry.id, type: e.sourceEntry.type, messages: e.messages })),
    thinkingLevel: p.thinkingLevel,
    model: p.model,
  };
}

function answerFor(file) {
  const dir = mkdtempSync(join(tmpdir(), "pi16-oracle-"));
  try {
    const copy = join(dir, "s.jsonl");
    copyFileSync(file, copy);
    const sm = SessionManager.open(copy, dir);
    const entries = sm.getEntries();
    const stats = AgentSession.prototype.getSessionStats.call({
      sessionManager: sm,
      sessionFile: undefined,
      sessionId: sm.getSessionId(),
      getContextUsage: () => undefined,
    });
    const at = {};
    for (const e of entries) at[e.id] = projectionAt(entries, e.id);
    return {
      file,
      leafId: sm.getLeafId(),
      active: projectionAt(entries, sm.getLeafId()),
      at,
      tokens: stats.tokens,
      cost: stats.cost,
      breakdown: getUsageCostBreakdown(entries),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function usageOf(u) {
  const cost = { input: u.input * 1e-6, output: u.output * 3e-6, cacheRead: u.cacheRead * 1e-7, cacheWrite: 0 };
  cost.total = cost.input + cost.output + cost.cacheRead;
  return {
    input: u.input,
    output: u.output,
    cacheRead: u.cacheRead,
    cacheWrite: 0,
    totalTokens: u.input + u.output + u.cacheRead,
    cost,
  };
}

/** One step of a program: a SessionManager call. `ids` are the entries written so far (targets pick by index). */
function step(sm, op, ids, clock) {
  const pick = (k) => ids[k % ids.length];
  const timestamp = clock.next();
  switch (op.op) {
    case "user":
      return sm.appendMessage({ role: "user", content: op.text, timestamp });
    case "assistant":
      return sm.appendMessage({
        role: "assistant",
        content: [
          { type: "text", text: op.text },
          ...(op.tool ? [{ type: "toolCall", id: op.tool, name: "bash", arguments: { command: "ls" } }] : []),
        ],
        api: "anthropic-messages",
        provider: op.provider,
        model: op.model,
        usage: usageOf(op.usage),
        stopReason: op.tool ? "toolUse" : "stop",
        timestamp,
      });
    case "toolResult":
      return sm.appendMessage({
        role: "toolResult",
        toolCallId: op.tool,
        toolName: "bash",
        content: [{ type: "text", text: op.text }],
        isError: false,
        ...(op.usage ? { usage: usageOf(op.usage) } : {}),
        timestamp,
      });
    case "system":
      return sm.appendMessage({
        role: "system",
        content: "",
        sections: op.sections,
        ...(op.toolsAdded ? { toolsAdded: op.toolsAdded } : {}),
        timestamp,
      });
    case "custom_message":
      return sm.appendCustomMessageEntry("note", op.text, true);
    case "edit": {
      // pi refuses an edit of an entry off the active branch or without editable content: pick among those it takes.
      const editable = sm
        .getBranch()
        .filter(
          (e) =>
            e.type === "custom_message" ||
            (e.type === "message" && e.message.role !== "system" && e.message.role !== "bashExecution"),
        );
      return editable.length
        ? sm.appendContextEdit(editable[op.target % editable.length].id, op.replacement)
        : undefined;
    }
    case "usage":
      return sm.appendUsage("cache_warm", op.provider, op.model, usageOf(op.usage)).id;
    case "compact": {
      // Kept from an entry of the branch, as pi's summarizer keeps (one off the path is a trap the fixtures cover).
      const branch = sm.getBranch();
      const keep = op.keep === null || branch.length === 0 ? null : branch[op.keep % branch.length].id;
      return sm.appendCompaction(
        op.summary,
        keep,
        1000,
        undefined,
        op.keep === null,
        op.usage ? usageOf(op.usage) : undefined,
      );
    }
    case "branch":
      sm.branch(pick(op.at));
      return undefined;
    case "branchSummary":
      return sm.branchWithSummary(
        op.at === null ? null : pick(op.at),
        op.summary,
        undefined,
        false,
        op.usage ? usageOf(op.usage) : undefined,
      );
    case "reset":
      sm.resetLeaf();
      return undefined;
    case "model":
      return sm.appendModelChange(op.provider, op.model);
    case "thinking":
      return sm.appendThinkingLevelChange(op.level);
    case "label":
      return sm.appendLabelChange(pick(op.target), op.label);
    default:
      throw new Error(`unknown op ${op.op}`);
  }
}

function build(dir, program, n) {
  const cwd = join(dir, `cwd-${n}`);
  const sm = SessionManager.create(cwd, join(dir, `sessions-${n}`));
  let t = Date.UTC(2026, 10, 24, 8, 0, 0) + n * 1e6;
  const clock = { next: () => (t += 1000) };
  const ids = [];
  for (const op of program) {
    const id = step(sm, op, ids, clock);
    if (id) ids.push(id);
  }
  return sm.getSessionFile();
}

function preparationsFor(file, keeps, leaves) {
  return withOpenedCopy(file, (sm) => {
    const out = {};
    for (const id of leaves ?? sm.getEntries().map((e) => e.id))
      for (const keep of keeps) {
        const p = prepareCompaction(sm.getBranch(id), {
          enabled: true,
          reserveTokens: 16384,
          keepRecentTokens: keep,
        });
        out[`${id}/${keep}`] = p
          ? {
              firstKeptEntryId: p.firstKeptEntryId,
              isSplitTurn: p.isSplitTurn,
              tokensBefore: p.tokensBefore,
              previousSummary: p.previousSummary ?? null,
              messagesToSummarize: p.messagesToSummarize,
              turnPrefixMessages: p.turnPrefixMessages,
              read: [...p.fileOps.read],
              edited: [...p.fileOps.edited],
              written: [...p.fileOps.written],
            }
          : null;
      }
    return { file, preparations: out };
  });
}

/** The entries in the order pi's /tree lists them (its TreeSelectorComponent's flattened rows, every filter off). */
async function treeOrderOf(file) {
  const ui = join(
    import.meta.dirname,
    "node_modules",
    "@earendil-works",
    "pi-coding-agent",
    "dist",
    "modes",
    "interactive",
  );
  const { initTheme } = await import(pathToFileURL(join(ui, "theme", "theme.js")).href);
  const { TreeSelectorComponent } = await import(pathToFileURL(join(ui, "components", "tree-selector.js")).href);
  initTheme("dark");
  const dir = mkdtempSync(join(tmpdir(), "pi16-oracle-"));
  try {
    const copy = join(dir, "s.jsonl");
    copyFileSync(file, copy);
    const sm = SessionManager.open(copy, dir);
    const selector = new TreeSelectorComponent(
      sm.getTree(),
      sm.getLeafId(),
      40,
      () => {},
      () => {},
      () => {},
    );
    return { file, leafId: sm.getLeafId(), order: selector.treeList.flatNodes.map((n) => n.node.entry.id) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The session's name and every entry's label, as pi's SessionManager reads them. */
function namesOf(file) {
  return withOpenedCopy(file, (sm) => {
    const labels = {};
    for (const e of sm.getEntries()) {
      const label = sm.getLabel(e.id);
      if (label !== undefined) labels[e.id] = label;
    }
    return { file, name: sm.getSessionName() ?? null, labels };
  });
}

/** `use` pi's SessionManager on a temporary copy of `file` (pi's loader may append a newline to what it opens). */
function withOpenedCopy(file, use) {
  const dir = mkdtempSync(join(tmpdir(), "pi16-oracle-"));
  try {
    const copy = join(dir, "s.jsonl");
    copyFileSync(file, copy);
    return use(SessionManager.open(copy, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function mcpCalls({ command, args, env, roots, calls }) {
  const client = new McpClient({ name: "pi", version: "1.6.0", roots });
  await client.connect(new StdioTransport({ command, args, env, stderr: "pipe" }));
  try {
    const tools = (await client.listTools()).map((t) => ({ name: t.name, inputSchema: t.inputSchema }));
    const results = [];
    for (const c of calls) {
      const r = await client.callTool(c.name, c.arguments);
      results.push({ isError: r.isError === true, content: toLlmContent(r) });
    }
    return [{ tools, results }];
  } finally {
    await client.close();
  }
}

const request = JSON.parse(await new Response(process.stdin).text());
let answers;
if (request.op === "read") answers = request.files.map(answerFor);
else if (request.op === "prepare")
  answers = request.files.map((f) => preparationsFor(f, request.keeps, request.leaves?.[f]));
else if (request.op === "names") answers = request.files.map(namesOf);
else if (request.op === "treeOrder") answers = await Promise.all(request.files.map(treeOrderOf));
else if (request.op === "mcp") answers = await mcpCalls(request);
else if (request.op === "build") answers = request.programs.map((p, n) => answerFor(build(request.dir, p, n)));
else throw new Error(`unknown request ${request.op}`);
process.stdout.write(JSON.stringify(answers));
