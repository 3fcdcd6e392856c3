// A loopback mock of the three server-compaction surfaces (node:http on 127.0.0.1:0). It checks the wire shapes the
// real services expect (paths, headers, auth in the right form and no other, bodies) and can serve every error mode.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Mode =
  | "ok"
  | 401
  | 403
  | 404
  | 422
  | 500
  | "malformed"
  | "empty"
  | "two"
  | "notLast"
  | "slow"
  | "truncated"
  /** Answer `redirectStatus` (307) with `Location: redirectTo`. */
  | "redirect"
  /** 200 headers, then one byte every 200 ms, forever. */
  | "trickle"
  /** 200 headers, then `hugeBytes` of body as fast as the client reads (counted in `bytesSent`). */
  | "huge"
  /** A well-formed answer whose compaction item carries a value nested 100,000 levels deep. */
  | "deep"
  /** HTTP 400 whose error body is nested 100,000 levels deep. */
  | "deepError";

/** JSON text nested `depth` levels (JSON.stringify itself overflows on such a value). */
const deepJson = (depth = 100_000) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

export interface Recorded {
  path: string;
  search: string;
  headers: IncomingMessage["headers"];
  body: any;
}

export interface MockOptions {
  apiKey: string;
  azureKey: string;
  codexToken: string;
  accountId: string;
  deployment: string;
}

export interface MockProvider {
  url: string;
  mode: Mode;
  requests: Recorded[];
  /** Summarization requests answered. */
  summaries: number;
  /** Wire-shape problems found in requests (each also answered with HTTP 400). */
  violations: string[];
  redirectTo: string;
  redirectStatus: number;
  hugeBytes: number;
  /** Body bytes written in "huge" mode before the client stopped reading. */
  bytesSent: number;
  /** Wait this long before answering (every mode). */
  delayMs: number;
  /** Text put into the answer's first user message (to test that credentials in an answer are caught). */
  echo: string;
  /** The Azure deployment the requests must name (the options' by default). */
  deployment: string;
  /** Answer as Blackmagic's own test mock does: every user message of the input (not the last two). */
  echoAllUsers: boolean;
  /** The compaction answer's usage (a fixed one by default). */
  answerUsage: Record<string, unknown> | null;
  close(): Promise<void>;
}

const ENCRYPTED = "gAAAAABmock-" + "Zm9vYmFy".repeat(40);

export async function startMockProvider(o: MockOptions): Promise<MockProvider> {
  const mock: MockProvider = {
    url: "",
    mode: "ok",
    requests: [],
    summaries: 0,
    violations: [],
    redirectTo: "",
    redirectStatus: 307,
    hugeBytes: 100 * 1024 * 1024,
    bytesSent: 0,
    delayMs: 0,
    echo: "",
    deployment: o.deployment,
    echoAllUsers: false,
    answerUsage: null,
    close: async () => {},
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  const problems = (list: string[]) => list.filter(Boolean);

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    mock.requests.push({ path: url.pathname, search: url.search, headers: req.headers, body });
    const h = req.headers;
    let found: string[] = [];
    let surface: "openai" | "azure" | "codex";
    /** A summarization request (responses.create, or a Codex request without compaction_trigger). */
    let summary = false;
    if (req.method === "POST" && (url.pathname === "/v1/responses" || url.pathname === "/openai/v1/responses")) {
      surface = url.pathname === "/v1/responses" ? "openai" : "azure";
      summary = true;
      found = problems([
        surface === "openai" && h.authorization !== `Bearer ${o.apiKey}`
          ? "openai: Authorization must be Bearer <key>"
          : "",
        surface === "azure" && (h["api-key"] !== o.azureKey || h.authorization !== undefined)
          ? "azure: api-key only"
          : "",
        typeof body?.instructions !== "string" || !body.instructions.includes("summarization")
          ? `${surface}: pi's summarization system prompt as instructions`
          : "",
        body?.store !== false ? `${surface}: store false for a summary` : "",
        !String(body?.input?.[0]?.content?.[0]?.text ?? "").startsWith("<conversation>")
          ? `${surface}: the conversation in the prompt`
          : "",
      ]);
    } else if (req.method === "POST" && url.pathname === "/v1/responses/compact") {
      surface = "openai";
      found = problems([
        h.authorization !== `Bearer ${o.apiKey}` ? "openai: Authorization must be Bearer <key>" : "",
        h["api-key"] !== undefined ? "openai: no api-key header" : "",
      ]);
    } else if (req.method === "POST" && url.pathname === "/openai/v1/responses/compact") {
      surface = "azure";
      found = problems([
        url.searchParams.get("api-version") !== "v1" ? "azure: api-version=v1 query" : "",
        h["api-key"] !== o.azureKey ? "azure: api-key header" : "",
        h.authorization !== undefined ? "azure: no Authorization header" : "",
        body?.model !== mock.deployment ? "azure: model must be the deployment" : "",
      ]);
    } else if (req.method === "POST" && url.pathname === "/backend-api/codex/responses") {
      surface = "codex";
      const input: any[] = Array.isArray(body?.input) ? body.input : [];
      summary =
        input[input.length - 1]?.type !== "compaction_trigger" &&
        String(body?.instructions ?? "").includes("summarization");
      found = problems([
        h.authorization !== `Bearer ${o.codexToken}` ? "codex: Authorization must be Bearer <access token>" : "",
        h["chatgpt-account-id"] !== o.accountId ? "codex: chatgpt-account-id from the token's claim" : "",
        h.originator !== "pi" ? "codex: originator pi" : "",
        h["openai-beta"] !== "responses=experimental" ? "codex: OpenAI-Beta" : "",
        h.accept !== "text/event-stream" ? "codex: accept text/event-stream" : "",
        h["api-key"] !== undefined ? "codex: no api-key" : "",
        body?.store !== false || body?.stream !== true ? "codex: store false, stream true" : "",
        !summary && input[input.length - 1]?.type !== "compaction_trigger"
          ? "codex: compaction_trigger must be the last input item"
          : "",
        input.filter((i) => i?.type === "compaction_trigger").length !== (summary ? 0 : 1)
          ? "codex: exactly one compaction_trigger"
          : "",
        typeof body?.instructions !== "string" ? "codex: instructions" : "",
      ]);
    } else {
      res.writeHead(404).end();
      return;
    }
    if (surface !== "codex" && !summary) {
      found.push(
        ...problems([
          !String(h["content-type"] ?? "").startsWith("application/json")
            ? `${surface}: content-type application/json`
            : "",
          typeof body?.model !== "string" ? `${surface}: model` : "",
          !Array.isArray(body?.input) || body.input.length === 0 ? `${surface}: input items` : "",
          ["tools", "stream", "store", "reasoning"].some((k) => k in (body ?? {}))
            ? `${surface}: no tools, stream, store or reasoning in a compact request`
            : "",
        ]),
      );
    }
    if (found.length) {
      mock.violations.push(...found);
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: found.join("; ") } }));
      return;
    }
    const mode = mock.mode;
    if (mock.delayMs) await new Promise((r) => setTimeout(r, mock.delayMs));
    const contentType = surface === "codex" ? "text/event-stream" : "application/json";
    if (mode === "redirect") {
      res.writeHead(mock.redirectStatus, { location: mock.redirectTo }).end();
      return;
    }
    if (mode === "trickle") {
      res.writeHead(200, { "content-type": contentType });
      const timer = setInterval(() => res.write(" "), 200);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (mode === "huge") {
      res.writeHead(200, { "content-type": contentType });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      mock.bytesSent = 0;
      const pump = () => {
        while (mock.bytesSent < mock.hugeBytes && !res.destroyed) {
          mock.bytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => res.removeAllListeners("drain"));
      pump();
      return;
    }
    if (mode === "deepError") {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(`{"error":{"message":"mock","type":"mock","param":${deepJson()}}}`);
      return;
    }
    if (typeof mode === "number") {
      res
        .writeHead(mode, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `mock ${mode}`, type: "mock" } }));
      return;
    }
    if (mode === "slow") await new Promise((r) => setTimeout(r, 5000));
    if (summary) {
      mock.summaries++;
      const message = {
        type: "message",
        role: "assistant",
        status: "completed",
        id: "msg_sum",
        content: [
          {
            type: "output_text",
            text: `## Goal\nMOCK LLM SUMMARY ${mock.summaries}${mock.echo ? ` ${mock.echo}` : ""}`,
            annotations: [],
          },
        ],
      };
      if (surface !== "codex") {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: "resp_sum",
            object: "response",
            output: [message],
            usage: { input_tokens: 900, output_tokens: 40, total_tokens: 940 },
          }),
        );
      } else {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(
          `data: ${JSON.stringify({ type: "response.output_item.done", item: message })}\n\n` +
            `data: ${JSON.stringify({ type: "response.completed", response: { id: "resp_sum", output: [] } })}\n\n`,
        );
      }
      return;
    }
    const compaction = {
      id: "cmp_mock_1",
      type: "compaction",
      encrypted_content: ENCRYPTED,
      ...(mode === "deep" ? { meta: "DEEP" } : {}),
    };
    // In "deep" mode the marker becomes a deeply nested value in the text sent.
    const send = (text: string) => (mode === "deep" ? text.replace('"DEEP"', deepJson()) : text);
    const users = (body.input as any[])
      .filter((i) => i.role === "user")
      .slice(mock.echoAllUsers ? 0 : -2)
      .map((i) => ({
        type: "message",
        role: "user",
        content: i.content,
        status: "completed",
        id: `msg_u${Math.random().toString(36).slice(2, 8)}`,
      }));
    if (mock.echo && users[0]) users[0].content = [{ type: "input_text", text: mock.echo }];
    let output: any[];
    switch (mode) {
      case "empty":
        output = [];
        break;
      case "two":
        output = [...users, compaction, { ...compaction, id: "cmp_mock_2" }];
        break;
      case "notLast":
        output = [compaction, ...users];
        break;
      default:
        output = surface === "codex" ? [compaction] : [...users, compaction];
    }
    const usage = mock.answerUsage ?? {
      input_tokens: 4321,
      output_tokens: 87,
      total_tokens: 4408,
      input_tokens_details: { cached_tokens: 0 },
    };
    if (mode === "malformed") {
      res
        .writeHead(200, { "content-type": surface === "codex" ? "text/event-stream" : "application/json" })
        .end(surface === "codex" ? "data: {not json\n\n" : "{not json");
      return;
    }
    if (surface !== "codex") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(send(JSON.stringify({ id: "resp_mock", object: "response.compaction", created_at: 1, output, usage })));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ type: "response.created", response: { id: "resp_mock" } })}\n\n`);
    for (const item of output)
      res.write(
        send(
          `event: response.output_item.done\ndata: ${JSON.stringify({ type: "response.output_item.done", item })}\n\n`,
        ),
      );
    if (mode === "truncated") {
      res.destroy();
      return;
    }
    res.end(
      `data: ${JSON.stringify({ type: "response.completed", response: { id: "resp_mock", output: [], usage } })}\n\n`,
    );
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock;
}

/** A syntactically valid JWT carrying the ChatGPT account claim (pi-ai reads it before onPayload). */
export function fakeCodexToken(account = "acct-test"): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${b64({ alg: "none" })}.${b64({ "https://api.openai.com/auth": { chatgpt_account_id: account } })}.sig`;
}
