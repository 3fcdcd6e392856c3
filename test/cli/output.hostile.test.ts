// Hardening of the CLI's output and files (issue #14, items 11-14): terminal escapes in session text never reach a
// terminal live, repair touches only sessions and never writes through a planted symlink, and CSV cells (headers
// included) are escaped.
import * as assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/main.js";
import { inspectTail, repairTail } from "../../src/node/repair.js";
import { exportTable } from "../../src/node/views/dashboard.js";
import type { DashboardModel } from "../../src/protocol/views.js";
import { fork, header, label, message, sessionInfo, usage } from "../support/builders.js";
import { jsonl } from "../support/helpers.js";

const ESC = "\u001b";
/** Session text that would act on a terminal if printed raw. */
const HOSTILE = {
  title: `${ESC}]0;pwned-title\u0007`,
  clear: `${ESC}[2J${ESC}[H`,
  clipboard: `${ESC}]52;c;cm0gLXJmIH4=\u0007`,
  link: `${ESC}]8;;https://evil.example\u0007click${ESC}]8;;\u0007`,
  c1: "\u009b31m",
  bidi: "\u202eexe.txt\u2066",
  row: "\nFORGED ROW  pi  999  999",
};
const ALL = Object.values(HOSTILE).join(" ");

/** No raw control character (but the newline), DEL, C1 control or bidirectional override. */
function assertInert(text: string, what: string) {
  const bad = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u.exec(text);
  assert.equal(bad, null, `${what}: raw ${JSON.stringify(bad?.[0])} at ${bad?.index}`);
  assert.ok(!/^FORGED ROW/m.test(text), `${what}: a forged row starts a line`);
}

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

describe("hardening: the CLI's text output, repair and CSV", function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-hostile-"));
    const sessions = join(dir, "agent", "sessions", "--hostile--");
    mkdirSync(sessions, { recursive: true });
    file = join(sessions, "2026-11-29T10-00-00-000Z_hostile.jsonl");
    writeFileSync(
      file,
      jsonl(
        header({ id: `hostile${ALL}`, cwd: `/w/${ALL}` }),
        { type: "session_info", id: "n0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", name: ALL },
        message("u0000001", "n0000001", "user", `prompt ${ALL}`),
        message("a0000001", "u0000001", "assistant", `reply ${ALL}`, { model: `gpt${ALL}`, usage: usage(10, 5, 0.5) }),
        label("l0000001", "a0000001", "a0000001", `label ${ALL}`),
        message("u0000002", "l0000001", "user", `second ${ALL}`),
        // An entry type nobody writes: its diagnostic quotes the type (lint prints it).
        {
          type: `x${HOSTILE.c1}${HOSTILE.bidi}`,
          id: "t0000001",
          parentId: "u0000002",
          timestamp: "2026-01-01T00:00:09.000Z",
        },
      ) + `{"type":"message","id":"x","parentId":"t0000001","message":{"role":"user","content":"${HOSTILE.clear}`,
    );
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(file, past, past);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const commands: [string, string[]][] = [
    ["tree", ["tree", "FILE"]],
    ["context", ["context", "FILE"]],
    ["lint", ["lint", "FILE"]],
    ["list", ["list", "--agent-dir", "AGENT", "--no-cache"]],
    ["usage by session", ["usage", "--agent-dir", "AGENT", "--no-cache"]],
    ["usage by model", ["usage", "--by", "model", "--agent-dir", "AGENT", "--no-cache"]],
    ["usage by project", ["usage", "--by", "project", "--agent-dir", "AGENT", "--no-cache"]],
    ["repair (shows the line)", ["repair", "FILE"]],
  ];
  for (const [name, args] of commands) {
    it(`${name}: session text is printed inert, with visible escapes`, async () => {
      const argv = args.map((a) => (a === "FILE" ? file : a === "AGENT" ? join(dir, "agent") : a));
      const r = await cli(...argv);
      assertInert(r.out, `${name} stdout`);
      assertInert(r.err, `${name} stderr`);
      assert.ok((r.out + r.err).length > 0);
    });
  }

  it("the escapes are visible (\\x1b, \\u202e), and JSON output keeps the exact text", async () => {
    const text = (await cli("tree", file)).out;
    assert.ok(text.includes("\\x1b]0;pwned-title"), text.slice(0, 300));
    assert.ok(text.includes("\\u202e"));
    const json = JSON.parse((await cli("tree", file, "--json")).out);
    assert.equal(json.name, ALL, "JSON is exact");
    const list = JSON.parse((await cli("list", "--agent-dir", join(dir, "agent"), "--no-cache", "--json")).out);
    assert.equal(list.sessions[0].name, ALL);
  });

  it("list: a parent's title is one field, its newline made a space (it cannot start a row of its own)", async () => {
    const sessions = join(dir, "agent", "sessions", "--forks--");
    mkdirSync(sessions, { recursive: true });
    const parentId = "parent\n999  ok";
    writeFileSync(
      join(sessions, "p.jsonl"),
      jsonl(
        header({ id: parentId }),
        message("u0000001", null, "user", "x"),
        sessionInfo("n1", "u0000001", "t\n999  ok"),
      ),
    );
    writeFileSync(
      join(sessions, "c.jsonl"),
      jsonl(fork(parentId, { id: "child" }), message("u0000001", null, "user", "x")),
    );
    const r = await cli("list", "--agent-dir", join(dir, "agent"), "--no-cache");
    assert.match(r.out, /fork of t 999 ok/, r.out);
    assert.ok(!/^999 {2}ok/m.test(r.out), r.out);
    const json = JSON.parse((await cli("list", "--agent-dir", join(dir, "agent"), "--no-cache", "--json")).out);
    const child = json.sessions.find((x: { id: string }) => x.id === "child");
    assert.equal(child.parentId, parentId, "JSON keeps the exact id");
  });

  it("repair refuses a file that is not a session and leaves it as it was", async () => {
    const script = join(dir, "notes.sh");
    writeFileSync(script, "#!/bin/sh\necho one\necho two");
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(script, past, past);
    const before = readFileSync(script);
    const r = await cli("repair", script, "--yes");
    assert.equal(r.code, 2);
    assert.match(r.err, /not a session/);
    assert.ok(readFileSync(script).equals(before));
    await assert.rejects(inspectTail(script), /not a session/);
  });

  it("repair's backup is exclusive and owner-only: a symlink at the backup name is never written through", async () => {
    const now = Date.parse("2026-12-01T12:00:00.000Z");
    // Written an hour before that moment (relative to the clock it was an hour before the test ran, which stopped
    // passing after 13:00 UTC on that day): repair sees no agent writing it.
    const past = new Date(now - 3_600_000);
    utimesSync(file, past, past);
    const predictable = `${file}.bak-2026-12-01T12-00-00-000Z`;
    const outside = join(dir, "outside.txt");
    writeFileSync(outside, "precious");
    symlinkSync(outside, predictable);
    const dangling = `${file}.bak-2026-12-01T12-00-00-000Z-1`;
    symlinkSync(join(dir, "nowhere", "x"), dangling);
    const seen = (await inspectTail(file))!;
    const r = await repairTail(file, seen, { now: () => now });
    assert.equal(readFileSync(outside, "utf8"), "precious", "the symlink's target is untouched");
    assert.ok(!existsSync(join(dir, "nowhere")), "nothing was created through the dangling symlink");
    assert.equal(r.backup, `${file}.bak-2026-12-01T12-00-00-000Z-2`, "a fresh name");
    assert.ok(lstatSync(r.backup).isFile() && !lstatSync(r.backup).isSymbolicLink());
    assert.equal(lstatSync(r.backup).mode & 0o777, 0o600, "readable by the owner only");
    assert.ok(readFileSync(r.backup).subarray(0, seen.offset).equals(readFileSync(file)));
  });

  it("CSV: every cell is escaped, the day table's cost:<model> headers too", () => {
    const evil = 'gpt,"x"\n=HYPERLINK("https://evil.example")';
    const model: DashboardModel = {
      kind: "usage",
      scope: "all",
      since: null,
      until: null,
      folders: [],
      sessions: 1,
      totals: {
        cost: 1,
        input: 1,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 2,
        messages: 1,
        unpriced: 0,
        activeCost: 1,
        inheritedCost: 0,
      },
      days: [{ day: "2026-11-29", cost: 1, byModel: { [evil]: 1, "=cmd|' /C calc'!A0": 0.5 } }],
      models: [],
      projects: [],
      topSessions: [],
    };
    const csv = exportTable(model, "days", "csv");
    const lines = csv.trimEnd().split("\n");
    // RFC 4180: a quoted cell may hold a newline; parse the header row properly.
    const cells: string[] = [];
    let cell = "";
    let quoted = false;
    let i = 0;
    for (; i < csv.length; i++) {
      const ch = csv[i]!;
      if (quoted) {
        if (ch === '"' && csv[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (ch === '"') quoted = false;
        else cell += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ",") {
        cells.push(cell);
        cell = "";
      } else if (ch === "\n") break;
      else cell += ch;
    }
    cells.push(cell);
    assert.deepEqual(cells, ["key", "cost", "cost:=cmd|' /C calc'!A0", `cost:${evil}`]);
    assert.ok(lines.length >= 2);
    assert.equal(
      csv
        .slice(i + 1)
        .trimEnd()
        .split("\n").length,
      1,
      "one data row: no row was injected",
    );
  });
});
