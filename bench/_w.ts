import { SearchClient } from "../src/node/search/searchClient.js";
import { indexTargets } from "../src/node/search/targets.js";
import { computeOwnership, loadStore } from "../src/node/store/index.js";
import { resolveRoots } from "../src/node/roots.js";
const [agent, cacheFile] = process.argv.slice(2);
const roots = resolveRoots({ agentDirs: [agent!] });
const store = await loadStore({ roots, cacheFile: cacheFile ?? null });
computeOwnership(store.sessions);
let peak = 0;
const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
const t0 = Date.now();
await new Promise<void>((resolve) => {
  const c = new SearchClient(
    `${process.cwd()}/dist/searchWorker.cjs`,
    { cacheDir: "/tmp/s3w", roots: roots.map((r) => r.dir), variant: "" },
    {
      onSynced: () => {
        console.log("synced", (Date.now() - t0) / 1000, "s");
        void c.dispose().then(resolve);
      },
      onFailed: (m) => console.log("failed", m),
    },
  );
  c.sync(indexTargets(store.sessions));
});
clearInterval(t);
console.log("peak rss", (peak / 1048576).toFixed(0), "MB");
