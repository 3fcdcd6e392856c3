/**
 * The team database's module, loaded on first use. In the bundles it is a file of its own (dist/team.cjs), a CommonJS
 * module whose exports arrive as `default` when an ES module imports it.
 */
type Team = typeof import("./index.js");

export async function loadTeam(): Promise<Team> {
  const loaded = (await import("./index.js")) as Partial<Team> & { default?: Team };
  return loaded.default ?? (loaded as Team);
}
