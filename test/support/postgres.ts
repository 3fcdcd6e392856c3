/** A throwaway PostgreSQL server for a suite (scripts/pg/postgres.mjs) and a client. No test skips without one. */
import pg from "pg";
import { startPostgres } from "../../scripts/pg/postgres.mjs";

export interface TestServer {
  url: string;
  port: number;
  stop(): void;
  pause(): void;
  resume(): void;
}

export const startServer = (): Promise<TestServer> => startPostgres() as Promise<TestServer>;

/** A new empty database on the server, its URL. */
export async function newDatabase(server: TestServer, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
}

/** Run queries against a database. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
