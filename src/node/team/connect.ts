/**
 * A connection to the team database (PostgreSQL, through the `pg` client): from a URL, else
 * `PI_SESSIONS_DATABASE_URL`, else libpq's `PG*` variables (which `pg` reads itself). TLS as the URL asks
 * (`sslmode=require`, `verify-full` with `sslrootcert`, read as libpq reads them: tls.ts). Every failure is one
 * line naming where, never the password:
 * the URL's password and the `PGPASSWORD` variable are scrubbed from any message before it is shown or logged.
 */
import pg from "pg";
import { formatDuration } from "../../protocol/format.js";
import { clientSettings } from "./tls.js";

export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

export interface TeamConnection extends Queryable {
  /** The database as a person reads it, without a password: `user@host:port/database`. */
  where: string;
  end(): Promise<void>;
}

/** A failure of the team database: its message names where, and holds no secret. */
export class TeamError extends Error {
  override name = "TeamError";
  /** The server's SQLSTATE, when it refused a statement (`42501`: no right to it). */
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

const CONNECT_TIMEOUT_MS = 10_000;
/**
 * A statement that takes longer is cancelled by the server (a sync's batch, a report's query); a server that cannot
 * answer at all (stopped, a network that drops packets) is given up by the client a little later.
 */
const STATEMENT_TIMEOUT_MS = 120_000;
const CLIENT_GRACE_MS = 10_000;

/** The URL a command names, from its option or the environment (undefined: libpq's PG* variables). */
export function databaseUrl(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = option ?? env.PI_SESSIONS_DATABASE_URL;
  return url && url.trim() ? url.trim() : undefined;
}

/** Where a URL (or the PG* variables) points, without its password. */
export function describeDatabase(url: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (!url) {
    const host = env.PGHOST ?? "localhost";
    return `${env.PGUSER ?? "(default user)"}@${host}:${env.PGPORT ?? 5432}/${env.PGDATABASE ?? "(default)"}`;
  }
  try {
    const u = new URL(url);
    const db = u.pathname.replace(/^\//, "") || "(default)";
    return `${decodeURIComponent(u.username) || "(default user)"}@${u.hostname || "localhost"}:${u.port || 5432}/${db}`;
  } catch {
    return "(a connection string that is not a URL)";
  }
}

/** `text` with every secret this connection could carry replaced. */
export function scrub(text: string, url: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const secrets: string[] = [];
  if (env.PGPASSWORD) secrets.push(env.PGPASSWORD);
  if (url) {
    try {
      const password = decodeURIComponent(new URL(url).password);
      if (password) secrets.push(password, encodeURIComponent(password));
    } catch {
      // Not a URL: the whole string may be a key=value connection string with a password in it.
      const m = /password\s*=\s*('([^']*)'|\S+)/i.exec(url);
      if (m) secrets.push(m[2] ?? m[1]!);
    }
    secrets.push(url);
  }
  let out = text;
  for (const s of secrets.filter((x) => x.length >= 3).sort((a, b) => b.length - a.length))
    out = out.split(s).join("***");
  return out;
}

/** Connect, or a `TeamError` naming where and why (never the password). */
export async function connectTeam(
  url: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  { timeoutMs = STATEMENT_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<TeamConnection> {
  // (PGSERVICE is not enough: `pg` does not read pg_service.conf.)
  if (!url && !env.PGHOST && !env.PGDATABASE)
    throw new TeamError(
      "no team database: give --database URL, or set PI_SESSIONS_DATABASE_URL or libpq's PG* variables",
    );
  const where = describeDatabase(url, env);
  let settings: pg.ClientConfig;
  try {
    settings = clientSettings(url, env);
  } catch (err) {
    throw new TeamError(`cannot connect to the team database at ${where}: ${scrub(reasonOf(err), url, env)}`);
  }
  const client = new pg.Client({
    ...settings,
    connectionTimeoutMillis: Math.min(CONNECT_TIMEOUT_MS, timeoutMs),
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + Math.min(CLIENT_GRACE_MS, timeoutMs),
    keepAlive: true,
    application_name: "pi-sessions",
  });
  // An error of an idle connection (the server went away) is reported by the next query, not thrown here.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new TeamError(`cannot connect to the team database at ${where}: ${scrub(reasonOf(err), url, env)}`);
  }
  // After a server that did not answer, the connection is dropped: nothing more is sent on it (not even a ROLLBACK,
  // which would wait as long again), and ending it does not wait for a goodbye that will not come.
  let gaveUp: string | null = null;
  const drop = () =>
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  return {
    where,
    query: async (text, values) => {
      if (gaveUp) throw new TeamError(gaveUp);
      try {
        const r = await client.query(text, values);
        return { rows: r.rows as Record<string, unknown>[], rowCount: r.rowCount };
      } catch (err) {
        const message = `the team database at ${where}: ${scrub(reasonOf(err), url, env)}`;
        if (/read timeout/i.test(reasonOf(err))) {
          gaveUp = `the team database at ${where} did not answer within ${formatDuration(timeoutMs)}`;
          drop();
          throw new TeamError(gaveUp);
        }
        throw new TeamError(message, (err as { code?: string }).code);
      }
    },
    end: async () => {
      if (gaveUp) return drop();
      await client.end().catch(() => undefined);
    },
  };
}

/** Connect, run `fn`, and end the connection whatever happened. */
export async function withTeam<T>(
  url: string | undefined,
  env: NodeJS.ProcessEnv,
  fn: (db: TeamConnection) => Promise<T>,
): Promise<T> {
  const db = await connectTeam(url, env);
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) return reasonOf(err.errors[0]);
  const e = err as { message?: string; code?: string };
  const message = e?.message || String(err);
  return e?.code && !message.includes(e.code) ? `${message} (${e.code})` : message;
}
