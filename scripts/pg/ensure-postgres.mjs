// Makes sure PostgreSQL's server binaries are installed for the tests of the team database (issue #39): Debian's
// `postgresql` package, installed with apt-get when missing (as root, as on CI). Fails loudly; never skips.
import { spawnSync } from "node:child_process";
import { userInfo } from "node:os";
import { postgresBin } from "./postgres.mjs";

if (!postgresBin()) {
  console.log("[postgres] installing Debian's postgresql package for the team database tests");
  if (userInfo().uid !== 0) {
    console.error("[postgres] FAILED: PostgreSQL's server is missing and this is not root: apt-get install postgresql");
    process.exit(1);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", "postgresql"]]) {
    const r = spawnSync("apt-get", args, { stdio: "inherit", env });
    if (r.status !== 0) {
      console.error(`[postgres] FAILED: apt-get ${args.join(" ")} (exit ${r.status})`);
      process.exit(1);
    }
  }
  if (!postgresBin()) {
    console.error("[postgres] FAILED: the package installed no server under /usr/lib/postgresql");
    process.exit(1);
  }
}
