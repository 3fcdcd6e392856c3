/**
 * The client settings of a team database connection, TLS read as libpq reads it. `pg` alone treats
 * `sslmode=require` as `verify-full` (so a server with its own certificate, which `psql` accepts with `require`,
 * is refused) and ignores `PGSSLROOTCERT`; a user's connection string must mean here what it means to `psql`:
 * - `disable` (and `allow`, which `pg` cannot try in plain text first): no TLS; `prefer`: TLS, not verified
 *   (`pg` has no fallback to plain text when a server has no TLS);
 * - `require`: TLS, not verified, unless `sslrootcert` names a CA (then verified as `verify-ca`);
 * - `verify-ca`: the chain checked against `sslrootcert`; `verify-full`: the chain and the host name.
 * Parameters of the URL win over libpq's `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY`, as in libpq.
 */
import { readFileSync } from "node:fs";
import type { ClientConfig } from "pg";
import { parse, toClientConfig } from "pg-connection-string";

/** A connection string that cannot be used (not a URL, a CA file that cannot be read, an unknown mode). */
class TlsSettingError extends Error {}

const TLS_PARAMETERS: Record<string, string> = {
  sslmode: "PGSSLMODE",
  sslrootcert: "PGSSLROOTCERT",
  sslcert: "PGSSLCERT",
  sslkey: "PGSSLKEY",
};
const MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"];

/** The `pg` client settings for `url` (undefined: libpq's `PG*` variables alone). */
export function clientSettings(url: string | undefined, env: NodeJS.ProcessEnv): ClientConfig {
  const fromEnv = new URLSearchParams();
  for (const [parameter, variable] of Object.entries(TLS_PARAMETERS))
    if (env[variable]) fromEnv.set(parameter, env[variable]);
  if (!url) {
    // Host, user and database come from the PG* variables, read by `pg` itself; only TLS is ours to add.
    if (![...fromEnv.keys()].length) return {};
    return { ssl: parsed(`postgres://localhost/?${fromEnv.toString()}`).ssl };
  }
  if (/^(\/|socket:)/.test(url)) return { connectionString: url };
  if (!/^postgres(ql)?:\/\//i.test(url))
    throw new TlsSettingError(
      "the connection string is not a postgres:// URL (libpq's key=value form is not read here: " +
        "write postgres://user@host:port/database?sslmode=…)",
    );
  return parsed(withEnvironmentDefaults(url, fromEnv));
}

/** `url` with libpq's variables for the TLS parameters it does not set itself. */
function withEnvironmentDefaults(url: string, fromEnv: URLSearchParams): string {
  let query = "";
  const params = new URL(url).searchParams;
  for (const [key, value] of fromEnv) if (!params.has(key)) query += `&${key}=${encodeURIComponent(value)}`;
  if (!query) return url;
  return url.includes("?") ? url + query : `${url}?${query.slice(1)}`;
}

function parsed(url: string): ClientConfig {
  const params = new URL(url).searchParams;
  const mode = params.get("sslmode");
  if (mode && !MODES.includes(mode)) throw new TlsSettingError(`sslmode=${mode} is not one of ${MODES.join(", ")}`);
  for (const key of ["sslrootcert", "sslcert", "sslkey"]) {
    const file = params.get(key);
    if (!file) continue;
    try {
      readFileSync(file);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new TlsSettingError(`${key} file ${file} cannot be read (${reason})`);
    }
  }
  const libpq = mode === "allow" ? url.replace(/sslmode=allow/, "sslmode=disable") : url;
  const own = params.has("uselibpqcompat");
  return toClientConfig(parse(libpq, own ? {} : { useLibpqCompat: true }));
}
