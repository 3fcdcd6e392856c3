// Builds a HOME with ~/.pi/agent and ~/.omp/agent session stores from the real fixtures in fixtures/real, as if the
// agents had run with HOME=<dest>: the fixtures were written with HOME=/home/u, so paths and pi slug folders are
// rewritten in the copies (never in fixtures/). Also makes <dest>/src/proj, the workspace most sessions belong to.
// Usage: node scripts/vscode/fixture-home.mjs <dest>    (or import { buildFixtureHome })
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE_HOME = '/home/u';

const piSlug = (cwd) => `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;

function rewrite(text, home) {
  // Paths name pi slug folders too (`sessions/--home-u-src-proj--/…`), then the home itself.
  return text.split(`/${piSlug(FIXTURE_HOME).slice(0, -2)}-`).join(`/${piSlug(home).slice(0, -2)}-`).split(`${FIXTURE_HOME}/`).join(`${home}/`);
}

function copyTree(from, to, home) {
  mkdirSync(to, { recursive: true });
  for (const d of readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, d.name);
    if (d.isDirectory()) copyTree(src, path.join(to, d.name), home);
    else if (d.name.endsWith('.jsonl')) {
      const text = rewrite(readFileSync(src, 'utf8'), home);
      const target = path.join(to, d.name);
      writeFileSync(target, text);
      // The file was last written when its last entry was (otherwise every copy would look "live").
      const stamps = text.match(/"timestamp":"([^"]+)"/g);
      const last = stamps ? Date.parse(stamps[stamps.length - 1].slice(13, -1)) : NaN;
      if (Number.isFinite(last)) utimesSync(target, new Date(last), new Date(last));
    }
    else cpSync(src, path.join(to, d.name));
  }
}

function copyStore(from, to, home, renameSlug) {
  for (const slug of readdirSync(from)) copyTree(path.join(from, slug), path.join(to, renameSlug(slug)), home);
}

export function buildFixtureHome(dest) {
  const home = path.resolve(dest);
  rmSync(home, { recursive: true, force: true });
  const piSessions = path.join(home, '.pi', 'agent', 'sessions');
  const ompSessions = path.join(home, '.omp', 'agent', 'sessions');
  mkdirSync(piSessions, { recursive: true });
  mkdirSync(ompSessions, { recursive: true });
  const fixtures = path.join(projectRoot, 'fixtures', 'real');
  const homeSlug = piSlug(FIXTURE_HOME).slice(0, -2); // --home-u
  copyStore(path.join(fixtures, 'pi', 'sessions'), piSessions, home, (slug) =>
    slug.startsWith(`${homeSlug}-`) ? `${piSlug(home).slice(0, -2)}${slug.slice(homeSlug.length)}` : slug);
  copyStore(path.join(fixtures, 'omp', 'sessions'), ompSessions, home, (slug) => slug);
  // A broken file, so the explorer's "not readable" state is part of every run.
  cpSync(path.join(fixtures, 'quirks', 'empty.jsonl'), path.join(piSessions, piSlug(path.join(home, 'src', 'proj')), 'broken-empty.jsonl'));
  const workspace = path.join(home, 'src', 'proj');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, 'README.md'), '# proj\n\nThe demo workspace: the sessions of this folder are under "This Workspace".\n');
  return { home, workspace, piSessions, ompSessions };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2];
  if (!dest) { console.error('usage: fixture-home.mjs <dest>'); process.exit(64); }
  console.log(JSON.stringify(buildFixtureHome(dest), null, 2));
}
