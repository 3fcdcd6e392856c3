// A throwaway PostgreSQL server for the tests (the team database, issue #39): Debian's server binaries, a cluster
// initialized in a temporary folder, listening on a free loopback port, trusted logins from there only, no fsync.
// Run as root (CI), the cluster belongs to the `postgres` user and its commands run as that user (PostgreSQL refuses
// to run as root). `startPostgres()` returns its URL and `stop()`, which removes the cluster.
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** The newest installed server's binaries, or null. */
export function postgresBin() {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], "bin") : null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Run a server command, as `postgres` when this process is root. */
function run(bin, command, args) {
  const asRoot = userInfo().uid === 0;
  const [file, argv] = asRoot
    ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]]
    : [join(bin, command), args];
  const r = spawnSync(file, argv, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${command} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/**
 * A folder the server's user can reach: the temporary folder when others may pass through it, else /var/tmp or
 * /dev/shm (some machines keep /tmp to root alone).
 */
function baseDir() {
  if (userInfo().uid !== 0) return tmpdir();
  for (const dir of [tmpdir(), "/var/tmp", "/dev/shm"])
    if (existsSync(dir) && (statSync(dir).mode & 0o001) !== 0) return dir;
  throw new Error("no temporary folder the postgres user can reach (tried $TMPDIR, /var/tmp, /dev/shm)");
}

/**
 * A CA and a server certificate for `localhost` only (so `verify-full` to 127.0.0.1 fails on the name and
 * `verify-ca` passes), and a second CA that signed nothing; the key owned by the server's user, as PostgreSQL asks.
 */
function makeCertificates(dir, owner) {
  const tls = join(dir, "tls");
  mkdirSync(tls);
  const ssl = (...args) => execFileSync("openssl", args, { cwd: tls, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  for (const ca of ["ca", "other-ca"])
    ssl(
      "req",
      "-x509",
      ...ec,
      "-days",
      "2",
      "-subj",
      `/CN=pi-sessions test ${ca}`,
      "-keyout",
      `${ca}.key`,
      "-out",
      `${ca}.pem`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=keyCertSign,cRLSign",
    );
  ssl("req", ...ec, "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr");
  writeFileSync(join(tls, "server.ext"), "subjectAltName=DNS:localhost\n");
  ssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "server.ext",
    "-out",
    "server.crt",
  );
  chmodSync(join(tls, "server.key"), 0o600);
  // PostgreSQL reads its key only when its own user owns it with no access for others.
  if (owner)
    for (const f of [tls, join(tls, "server.key"), join(tls, "server.crt")]) chownSync(f, owner.uid, owner.gid);
  chmodSync(tls, 0o755);
  return { ca: join(tls, "ca.pem"), otherCa: join(tls, "other-ca.pem"), cert: join(tls, "server.crt") };
}

/** Start a server; with `{ tls: true }` it also offers TLS with certificates of its own (`tls` in the result). */
export async function startPostgres({ tls: withTls = false } = {}) {
  const bin = postgresBin();
  if (!bin)
    throw new Error(
      "PostgreSQL's server is not installed: run `node scripts/pg/ensure-postgres.mjs` (apt-get install postgresql)",
    );
  const dir = mkdtempSync(join(baseDir(), "pi-sessions-pg-"));
  const data = join(dir, "data");
  let owner = null;
  if (userInfo().uid === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
    chownSync(dir, uid, gid);
    owner = { uid, gid };
  }
  chmodSync(dir, 0o700);
  const tls = withTls ? makeCertificates(dir, owner) : null;
  run(bin, "initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C"]);
  const port = await freePort();
  const options =
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ` +
    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off" +
    (tls ? ` -c ssl=on -c ssl_cert_file=${tls.cert} -c ssl_key_file=${join(dir, "tls", "server.key")}` : "");
  run(bin, "pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    tls,
    /** Stop the server at once and remove its cluster. */
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    /** Stop it, keeping its cluster (a database that is down). */
    pause() {
      run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    },
    resume() {
      run(bin, "pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
    },
  };
}
