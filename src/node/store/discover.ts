/**
 * Where sessions are: the walk over the session roots, and the placement rule that says where one path sits (flat,
 * in a slug folder, or nested in a session's artifacts dir). The watcher's paths are placed by the same rule
 * (`placeFile`), so a file the walk would not list is never taken in from a change event either.
 */
import { join, relative, sep } from "node:path";
import type { SessionRoot } from "../roots.js";
import { type FileStat, realFs, slicer, type StoreFs } from "./fs.js";
import { ioReason } from "../ioReason.js";

export interface DiscoveredFile {
  file: string;
  root: SessionRoot;
  /** The slug folder the file is in, or null for a flat file directly in a root. */
  slug: string | null;
  /** For OMP subagent and /tan sessions inside a session's artifacts dir: that session's file. */
  nestedIn: string | null;
  size: number;
  mtimeNs: bigint;
}

/** Session files end in `.jsonl`; lock, tmp and bak siblings (`.x.jsonl.lock`, `x.jsonl.tmp`) do not, or are hidden. */
const isSessionFileName = (name: string) => name.endsWith(".jsonl") && !isHidden(name);
const isHidden = (name: string) => name.startsWith(".");
/** A folder next to `<name>.jsonl` is that session's artifacts dir (OMP subagent and /tan sessions,
 * docs/session-format.md#t23). */
const isArtifactsDir = (name: string, siblings: { has(name: string): boolean }) => siblings.has(`${name}.jsonl`);
const inside = (real: string, rootReal: string) => real === rootReal || real.startsWith(rootReal + sep);

/**
 * Walk the roots: `<root>/*.jsonl` (flat dirs), `<root>/<slug>/*.jsonl`, and nested sessions one level deeper
 * inside a session's artifacts dir (`<slug>/<session>/*.jsonl`, docs/session-format.md#t23). Locks, tmp and bak
 * siblings don't end in
 * `.jsonl` or start with a dot and are skipped; a symlink is followed only if it stays inside its root.
 */
export async function discover(
  roots: SessionRoot[],
  fs: StoreFs = realFs,
  /** Told each file as it is found (a cold read starts its workers meanwhile: node/store/parallel.ts). */
  onFile?: (f: DiscoveredFile) => void,
  /** How a session file is stat'ed (a probing listing opens the files its cache does not know: node/store/index.ts). */
  statFile: (file: string) => FileStat = (file) => fs.stat(file),
): Promise<{ files: DiscoveredFile[]; errors: { path: string; message: string }[] }> {
  const files: DiscoveredFile[] = [];
  const errors: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  /** One real file (device and inode) is one session, whatever paths lead to it: the index in `files`. */
  const byIdentity = new Map<string, number>();
  const isLinkPath = (p: string) => {
    try {
      return fs.realpath(p) !== p;
    } catch {
      return true;
    }
  };
  const tick = slicer(64);
  for (const root of roots) {
    let rootReal: string;
    try {
      rootReal = fs.realpath(root.dir);
    } catch {
      continue; // a root that does not exist is simply empty
    }
    const list = (dir: string) => {
      try {
        return fs.readdir(dir);
      } catch (err) {
        errors.push({ path: dir, message: ioReason(err) });
        return [];
      }
    };
    /** Resolve a dirent to "file" | "dir" | null, refusing symlinks that leave the root. */
    const kind = (path: string, d: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) => {
      if (!d.isSymbolicLink()) return d.isFile() ? "file" : d.isDirectory() ? "dir" : null;
      try {
        const target = fs.realpath(path);
        if (!inside(target, rootReal)) return null;
        const st = fs.stat(target);
        return st.isFile() ? "file" : st.isDirectory() ? "dir" : null;
      } catch {
        return null;
      }
    };
    const addFile = (file: string, slug: string | null, nestedIn: string | null) => {
      if (seen.has(file)) return;
      seen.add(file);
      try {
        const st = statFile(file);
        const found: DiscoveredFile = { file, root, slug, nestedIn, size: st.size, mtimeNs: st.mtimeNs };
        const identity = st.dev !== undefined && st.ino !== undefined ? `${st.dev}:${st.ino}` : null;
        const earlier = identity === null ? undefined : byIdentity.get(identity);
        if (earlier === undefined) {
          if (identity !== null) byIdentity.set(identity, files.length);
          files.push(found);
          onFile?.(found);
        } else if (isLinkPath(files[earlier]!.file) && !isLinkPath(file)) {
          // The same file again (a symlinked folder or file): keep the path that is no link.
          files[earlier] = found;
        }
      } catch (err) {
        // vanished meanwhile: left out
        errors.push({ path: file, message: ioReason(err) });
      }
    };
    /** Sessions in `dir` (a root or a slug folder), plus nested ones in their artifacts dirs. */
    const scanSessionDir = async (dir: string, slug: string | null, subdirsAreSlugs: boolean) => {
      const dirents = list(dir);
      const names = new Set(dirents.map((d) => d.name));
      const subdirs: string[] = [];
      for (const d of dirents) {
        const k = kind(join(dir, d.name), d);
        if (k === "file" && isSessionFileName(d.name)) addFile(join(dir, d.name), slug, null);
        else if (k === "dir" && !isHidden(d.name)) subdirs.push(d.name);
        await tick();
      }
      for (const name of subdirs) {
        if (!isArtifactsDir(name, names)) continue;
        // the artifacts dir of session <name>.jsonl: nested subagent and /tan sessions
        const path = join(dir, name);
        for (const n of list(path)) {
          const np = join(path, n.name);
          if (isSessionFileName(n.name) && kind(np, n) === "file") addFile(np, slug, join(dir, `${name}.jsonl`));
          await tick();
        }
      }
      for (const name of subdirs) {
        if (!isArtifactsDir(name, names) && subdirsAreSlugs) await scanSessionDir(join(dir, name), name, false);
      }
    };
    await scanSessionDir(root.dir, null, true);
  }
  return { files, errors };
}

export type Placement = Pick<DiscoveredFile, "root" | "slug" | "nestedIn">;

/**
 * Where a path sits under the roots, by the walk's rule: `<root>/x.jsonl` (flat), `<root>/<slug>/x.jsonl`, a nested
 * session in an artifacts dir (`<root>/<slug>/<session>/x.jsonl`, or `<root>/<session>/x.jsonl` next to a flat
 * session); null for anything the walk would not list: hidden parts, deeper paths, a symlink out of its root, and a
 * second path (a symlink) to a session that is listed by its own path. A path that is gone is placed by its position
 * alone, so that its removal can be reported.
 */
export function placeFile(file: string, roots: SessionRoot[], fs: StoreFs = realFs): Placement | null {
  if (!isSessionFileName(file.split(sep).pop() ?? "")) return null;
  let real: string | null = null;
  try {
    real = fs.realpath(file);
  } catch {
    // Gone: placed by its position.
  }
  if (real !== null && real !== file && placeByPosition(real, real, roots, fs)) return null;
  return placeByPosition(file, real, roots, fs);
}

function placeByPosition(file: string, real: string | null, roots: SessionRoot[], fs: StoreFs): Placement | null {
  for (const root of roots) {
    const rel = relative(root.dir, file);
    if (!rel || rel.startsWith("..") || rel.startsWith(sep)) continue;
    const parts = rel.split(sep);
    if (parts.some(isHidden)) continue;
    try {
      if (real !== null && !inside(real, fs.realpath(root.dir))) continue;
    } catch {
      continue; // the root itself is gone
    }
    const exists = (...p: string[]) => {
      try {
        fs.stat(join(root.dir, ...p));
        return true;
      } catch {
        return false;
      }
    };
    const siblings = (dir: string[]) => ({ has: (n: string) => exists(...dir, n) });
    if (parts.length === 1) return { root, slug: null, nestedIn: null };
    const [a, b] = parts as [string, string];
    if (parts.length === 2) {
      return isArtifactsDir(a, siblings([]))
        ? { root, slug: null, nestedIn: join(root.dir, `${a}.jsonl`) }
        : { root, slug: a, nestedIn: null };
    }
    if (parts.length === 3 && !isArtifactsDir(a, siblings([])) && isArtifactsDir(b, siblings([a]))) {
      return { root, slug: a, nestedIn: join(root.dir, a, `${b}.jsonl`) };
    }
  }
  return null;
}
