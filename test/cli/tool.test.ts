// `pi-sessions` as a command-line tool (issue #15): version, per-command help with an example, one-line usage errors
// (exit 64), usage periods and dates in a time zone, --breakdown, empty results explained, tables that fit the
// terminal by display width, colour only when wanted. Expected totals come from the records the test writes.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import stringWidth from "string-width";
import { wantsColor } from "../../src/cli/args.js";
import { run } from "../../src/cli/main.js";
import { fitWidth, formatTable } from "../../src/cli/table.js";
import { header, message, usage } from "../support/builders.js";
import { jsonl, withTempDir } from "../support/helpers.js";

const COMMANDS = ["tree", "context", "export", "lint", "checkpoints", "list", "usage", "compact", "repair"];
const CLI = "dist/cli.js";
/** Its tree's JSON is larger than a pipe's buffer. */
const BIG_FIXTURE = "fixtures/upstream/large-session.jsonl";

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

/**
 * An agent dir with one session: two assistant turns on either side of midnight UTC between a Sunday and a Monday
 * (2026-11-29T23:30Z and 2026-11-30T00:30Z), on two models, with known tokens and costs.
 */
function store(dir: string): string {
  const agent = join(dir, "agent");
  const slug = join(agent, "sessions", "--p--");
  mkdirSync(slug, { recursive: true });
  writeFileSync(
    join(slug, "2026-11-29T23-00-00-000Z_s1.jsonl"),
    jsonl(
      header({ id: "s1", cwd: "/p", time: "2026-11-29T23:00:00.000Z" }),
      message("u1", null, "user", "sum it", { time: "2026-11-29T23:29:00.000Z" }),
      message("a1", "u1", "assistant", "done", {
        time: "2026-11-29T23:30:00.000Z",
        model: "gpt-5.1",
        usage: usage(100, 10, 0.5),
      }),
      message("u2", "a1", "user", "again", { time: "2026-11-30T00:29:00.000Z" }),
      message("a2", "u2", "assistant", "done again", {
        time: "2026-11-30T00:30:00.000Z",
        model: "gpt-5.1-mini",
        usage: usage(200, 20, 0.25),
      }),
    ),
  );
  return agent;
}

type Row = { key: string; input: number; cost: number; breakdown?: { model: string; input: number; cost: number }[] };
async function usageJson(agent: string, ...args: string[]): Promise<Row[]> {
  const r = await cli("usage", "--agent-dir", agent, "--no-cache", "--json", ...args);
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { rows: Row[] }).rows;
}
const keys = (rows: Row[]) => rows.map((r) => [r.key, r.input]);

describe("pi-sessions as a command-line tool", () => {
  it("--version prints the package version (the built program)", () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const r = spawnSync(process.execPath, [CLI, flag], { encoding: "utf8" });
      assert.equal(r.status, 0);
      assert.equal(r.stdout.trim(), version);
    }
  });

  it("--help lists every command; each command's --help has its synopsis, options and an example, exit 0", async () => {
    const top = await cli("--help");
    assert.equal(top.code, 0);
    for (const c of COMMANDS) assert.match(top.out, new RegExp(`^  ${c}\\b`, "m"), c);
    assert.match(top.out, /^Exit codes:\n {2}0 {3}ok\n/m);
    for (const c of COMMANDS) {
      for (const args of [
        [c, "--help"],
        [c, "-h"],
        ["help", c],
      ]) {
        const r = await cli(...args);
        assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
        assert.match(r.out, new RegExp(`^Usage: pi-sessions ${c} `, "m"), args.join(" "));
        assert.match(r.out, /^Options:/m);
        assert.match(r.out, new RegExp(`^Examples:\\n  \\$ pi-sessions ${c} `, "m"));
        assert.equal(r.err, "");
      }
    }
  });

  it("a usage error is one line naming the problem and where to read more, exit 64", async () => {
    const cases: [string[], RegExp][] = [
      [[], /^pi-sessions: missing command$/],
      [["--"], /^pi-sessions: missing command$/],
      [["frobnicate"], /^pi-sessions: unknown command 'frobnicate'/],
      [["usage", "--bogus"], /^pi-sessions usage: unknown option '--bogus'$/],
      [["usage", "--by", "fortnight"], /^pi-sessions usage: option '--by <group>' argument 'fortnight' is invalid/],
      [["tree"], /^pi-sessions tree: missing required argument 'file'$/],
      [["list", "extra"], /^pi-sessions list: too many arguments/],
      [["usage", "--since", "2026-13-45"], /^pi-sessions usage: --since "2026-13-45" is not a date/],
      [["usage", "--until", "2026-02-30"], /^pi-sessions usage: --until "2026-02-30" is not a date/],
      [["usage", "--since", "2026-1-5"], /is not a date/],
      [["usage", "--since", "20261201", "--until", "2026-11-30"], /^pi-sessions usage: --since 2026-12-01 is after/],
      [["usage", "--timezone", "Mars/Olympus"], /^pi-sessions usage: --timezone "Mars\/Olympus" is not a time zone/],
      [["usage", "--by", "model", "--breakdown"], /^pi-sessions usage: --breakdown goes with --by day/],
      [["compact", "f.jsonl", "--model", "m"], /^pi-sessions compact: --provider must be/],
    ];
    for (const [args, first] of cases) {
      const r = await cli(...args);
      assert.equal(r.code, 64, args.join(" "));
      const lines = r.err.trimEnd().split("\n");
      assert.equal(lines.length, 2, `${args.join(" ")}: ${r.err}`);
      assert.match(lines[0]!, first);
      assert.equal(lines[1], `see pi-sessions${args[0] && COMMANDS.includes(args[0]) ? ` ${args[0]}` : ""} --help`);
      assert.equal(r.out, "");
    }
  });

  it("usage --by day, week and month cut days in --timezone (default local); dates take both forms", async () => {
    await withTempDir(async (dir) => {
      const agent = store(dir);
      // UTC: Sunday 2026-11-29 and Monday 2026-11-30, so two ISO weeks (Mondays 11-23 and 11-30), one month.
      assert.deepEqual(keys(await usageJson(agent, "--by", "day", "--timezone", "UTC")), [
        ["2026-11-29", 100],
        ["2026-11-30", 200],
      ]);
      assert.deepEqual(keys(await usageJson(agent, "--by", "week", "--timezone", "UTC")), [
        ["2026-11-23", 100],
        ["2026-11-30", 200],
      ]);
      assert.deepEqual(keys(await usageJson(agent, "--by", "month", "--timezone", "UTC")), [["2026-11", 300]]);
      // Tokyo (UTC+9): both turns fall on Monday 2026-11-30 local time.
      assert.deepEqual(keys(await usageJson(agent, "--by", "day", "--timezone", "Asia/Tokyo")), [["2026-11-30", 300]]);
      // Los Angeles (UTC-8): both on Sunday 2026-11-29.
      assert.deepEqual(keys(await usageJson(agent, "--by", "week", "--timezone", "America/Los_Angeles")), [
        ["2026-11-23", 300],
      ]);
      // --since/--until in either form, in the same zone.
      for (const since of ["2026-11-30", "20261130"])
        assert.deepEqual(keys(await usageJson(agent, "--by", "day", "--timezone", "UTC", "--since", since)), [
          ["2026-11-30", 200],
        ]);
      assert.deepEqual(keys(await usageJson(agent, "--by", "day", "--timezone", "UTC", "--until", "20261129")), [
        ["2026-11-29", 100],
      ]);
      // Without --timezone, days are the process's local days (TZ).
      const local = spawnSync(
        process.execPath,
        [CLI, "usage", "--agent-dir", agent, "--no-cache", "--by", "day", "--json"],
        { encoding: "utf8", env: { ...process.env, TZ: "Asia/Tokyo" } },
      );
      assert.deepEqual(keys((JSON.parse(local.stdout) as { rows: Row[] }).rows), [["2026-11-30", 300]]);
    });
  });

  it("--breakdown adds per-model rows under each period, in JSON and in the table", async () => {
    await withTempDir(async (dir) => {
      const agent = store(dir);
      const rows = await usageJson(agent, "--by", "month", "--timezone", "UTC", "--breakdown");
      assert.equal(rows.length, 1);
      assert.deepEqual(
        rows[0]!.breakdown!.map((b) => [b.model, b.input, b.cost]),
        [
          ["openai/gpt-5.1", 100, 0.5],
          ["openai/gpt-5.1-mini", 200, 0.25],
        ],
      );
      const table = await cli(
        "usage",
        "--agent-dir",
        agent,
        "--no-cache",
        "--by",
        "day",
        "--timezone",
        "UTC",
        "--breakdown",
      );
      assert.equal(table.code, 0);
      const lines = table.out.split("\n");
      const at = lines.findIndex((l) => l.startsWith("2026-11-29"));
      assert.match(lines[at + 1]!, /^ {2}└ openai\/gpt-5\.1\s+100\s+10\s/);
      assert.match(lines[at + 2]!, /^2026-11-30\s+200\s/);
    });
  });

  it("empty results say why on stderr", async () => {
    await withTempDir(async (dir) => {
      const none = await cli("list", "--agent-dir", join(dir, "nowhere"), "--no-cache");
      assert.equal(none.code, 0);
      assert.match(none.err, /^pi-sessions list: no session directory found at .*nowhere.*; use --agent-dir$/m);
      mkdirSync(join(dir, "empty", "sessions"), { recursive: true });
      const empty = await cli("usage", "--agent-dir", join(dir, "empty"), "--no-cache");
      assert.match(empty.err, /^pi-sessions usage: no sessions in .*empty/m);
      const agent = store(dir);
      const range = await cli(
        "usage",
        "--agent-dir",
        agent,
        "--no-cache",
        "--since",
        "2026-01-01",
        "--until",
        "20260131",
      );
      assert.equal(range.code, 0);
      assert.match(range.err, /^pi-sessions usage: no usage between 2026-01-01 and 2026-01-31$/m);
      const elsewhere = await cli("list", "--agent-dir", agent, "--no-cache", "--workspace", "/elsewhere");
      assert.match(elsewhere.err, /no sessions of \/elsewhere \(1 in other folders; drop --workspace/);
      const some = await cli("list", "--agent-dir", agent, "--no-cache");
      assert.equal(some.err, "");
    });
  });

  it("a reader that closes the pipe early stops the program quietly (no stack trace)", () => {
    const r = spawnSync("sh", ["-c", `"${process.execPath}" ${CLI} tree ${BIG_FIXTURE} --json | head -c 10`], {
      encoding: "utf8",
    });
    assert.ok(statSync(BIG_FIXTURE).size > 256 * 1024, "more output than a pipe holds");
    assert.equal(r.stdout.length, 10);
    assert.equal(r.stderr, "");
  });

  it("an unreadable file is named once with its reason", async () => {
    const r = await cli("tree", "/nonexistent/session.jsonl");
    assert.equal(r.code, 2);
    assert.equal(r.err.trimEnd().split("\n").length, 1, r.err);
    assert.match(r.err, /^\/nonexistent\/session\.jsonl:0: rejected \S+: /);
    assert.equal((r.err.match(/ENOENT/g) ?? []).length <= 1, true, r.err);
    assert.equal((r.err.match(/\/nonexistent\/session\.jsonl/g) ?? []).length, 1, r.err);
  });
});

describe("CLI tables and colour", () => {
  const rows = [
    ["name", "cwd", "cost"],
    ["数据清洗 🚀 pipeline", "/home/me/src/a-very-long-project-directory-name/with/more/parts", "$1.00"],
    ["plain", "/p", "$0.10"],
  ];

  it("columns align by display width: CJK and emoji take two columns", () => {
    const lines = formatTable(rows, [2]).split("\n");
    const widths = lines.map((l) => stringWidth(l));
    assert.equal(new Set([widths[0], widths[2], widths[3]]).size, 1, lines.join("\n"));
    // The cost column starts at the same display column on every row.
    const costAt = (l: string) => stringWidth(l.slice(0, l.lastIndexOf("$")));
    assert.equal(costAt(lines[2]!), costAt(lines[3]!));
  });

  it("a table fits the terminal width, cutting the widest text column with …", () => {
    for (const columns of [40, 60, 80]) {
      const lines = formatTable(rows, [2], false, { columns }).split("\n");
      for (const l of lines) assert.ok(stringWidth(l) <= columns, `${columns}: ${stringWidth(l)} ${l}`);
      assert.ok(
        lines.some((l) => l.includes("…")),
        `${columns}: something was cut`,
      );
      assert.ok(lines[2]!.endsWith("$1.00"), "numbers are never cut");
    }
    assert.ok(!formatTable(rows, [2]).includes("…"), "without a terminal width nothing is cut");
    assert.equal(fitWidth("数据清洗", 5), "数据…");
    assert.equal(stringWidth(fitWidth("🚀🚀🚀", 4)), 3);
  });

  it("colour only when wanted: FORCE_COLOR, then NO_COLOR, then a terminal", () => {
    assert.equal(wantsColor({}, true), true);
    assert.equal(wantsColor({}, false), false);
    assert.equal(wantsColor({ NO_COLOR: "1" }, true), false);
    assert.equal(wantsColor({ NO_COLOR: "" }, true), true);
    assert.equal(wantsColor({ FORCE_COLOR: "1" }, false), true);
    assert.equal(wantsColor({ FORCE_COLOR: "0" }, true), false);
    assert.equal(wantsColor({ FORCE_COLOR: "1", NO_COLOR: "1" }, false), true);
    assert.match(formatTable(rows, [2], false, { color: true }), /^\x1b\[1mname/);
    assert.ok(!formatTable(rows, [2]).includes("\x1b"));
    // The built program writes no escape when piped, and colours under FORCE_COLOR.
    const piped = spawnSync(process.execPath, [CLI, "list", "--agent-dir", "fixtures/real/pi", "--no-cache"], {
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: "", NO_COLOR: "" },
    });
    assert.ok(!piped.stdout.includes("\x1b"));
    const forced = spawnSync(process.execPath, [CLI, "list", "--agent-dir", "fixtures/real/pi", "--no-cache"], {
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: "1" },
    });
    assert.match(forced.stdout, /^\x1b\[1mlast seen/);
  });
});
