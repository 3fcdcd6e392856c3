/**
 * Session-directory slugs and workspace matching (docs/session-format.md#where, #t22). Pure string logic: the host's
 * home directory, tmpdir and separator are passed in, so a Windows-shaped workspace is handled the same way on
 * every host and is never resolved against the host's cwd.
 */

export interface HostPaths {
  /** The host's home directory (host-native absolute path). */
  home: string;
  /** The host's os.tmpdir(). */
  tmpdir: string;
  /** True when the host is Windows (host-native paths use backslashes and drive letters). */
  windows: boolean;
}

/** pi's slug (and OMP's legacy absolute form): `--${cwd without leading separator, [/\\:] → -}--`. */
export function piSlug(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** A path written the Windows way (`C:\…`, `C:/…`, `\\server\share`), whatever the host. */
function isWindowsShaped(p: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(p) || /^\\\\[^\\]/.test(p);
}

function trimSeparators(p: string): string {
  return p.length > 1 ? p.replace(/[/\\]+$/, "") : p;
}

/**
 * `p` with `.` and `..` segments resolved and separators collapsed (as `path.normalize` does, for either kind of
 * path, without the host's rules): `/srv/app/../app-secrets` is `/srv/app-secrets`, which is not inside `/srv/app`.
 */
function normalizeSegments(p: string): string {
  const windows = isWindowsShaped(p);
  const parts = p.split(windows ? /[\\/]+/ : /\/+/);
  const lead = parts.shift() ?? ""; // "" for a POSIX root, "C:" for a drive, "" for a UNC path's empty first part
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  const sep = windows ? "\\" : "/";
  const unc = windows && /^[\\/]{2}/.test(p);
  return `${unc ? "\\\\" : lead}${sep}${out.join(sep)}`;
}

/** Is `p` the directory `dir` or inside it, across a separator boundary? */
function isInside(p: string, dir: string, caseInsensitive = false): boolean {
  let a = trimSeparators(normalizeSegments(p));
  let b = trimSeparators(normalizeSegments(dir));
  if (caseInsensitive) {
    a = a.toLowerCase().replace(/\//g, "\\");
    b = b.toLowerCase().replace(/\//g, "\\");
  }
  if (a === b) return true;
  const sep = caseInsensitive ? "\\" : "/";
  return a.startsWith(b.endsWith(sep) ? b : b + sep);
}

export interface SlugVariants {
  /** Slugs of the workspace folder itself. */
  exact: string[];
  /** Slug prefixes of folders inside the workspace; a match must continue right after the prefix. */
  prefix: string[];
}

/**
 * Every directory name under which an agent may have stored sessions of `workspace` or of a folder inside it:
 * pi absolute (`--a-b--` / `--a-b-…`), OMP home-relative (`-src-dotai` / `-src-dotai-…`), OMP tmp (`-tmp-x`),
 * and the legacy absolute form (same as pi's).
 */
export function workspaceSlugVariants(workspace: string, host: HostPaths): SlugVariants {
  const ws = trimSeparators(workspace);
  const abs = piSlug(ws); // --C--workspace-project-- or --home-u-src-proj--
  const exact = [abs];
  const prefix = [abs.slice(0, -2) + "-"];
  const windowsShaped = isWindowsShaped(ws);
  // Only a host-native absolute path gets home- and tmp-relative variants (OMP computes them from its own home).
  const native = host.windows ? windowsShaped : ws.startsWith("/") && !windowsShaped;
  if (native) {
    for (const [base, lead] of [
      [host.home, "-"],
      [host.tmpdir, "-tmp"],
    ] as const) {
      if (!base || !isInside(ws, base, host.windows)) continue;
      const rel = trimSeparators(ws)
        .slice(trimSeparators(base).length)
        .replace(/^[/\\]+/, "");
      const slug = rel ? `${lead === "-" ? "" : lead}-${rel.replace(/[/\\:]/g, "-")}` : lead;
      exact.push(slug);
      prefix.push(`${slug === "-" ? "" : slug}-`);
    }
  }
  return { exact, prefix };
}

/**
 * Does a session directory name belong to the workspace? Prefixes only match across a separator boundary. A slug
 * writes `/` as `-`, so a prefix also takes in a sibling (`--srv-app-secrets--` for `/srv/app`): callers decide by
 * the header's cwd where there is one, and pass `exactOnly` where the slug is all there is to go on.
 */
export function slugMatches(slug: string, variants: SlugVariants, exactOnly = false): boolean {
  if (variants.exact.includes(slug)) return true;
  return (
    !exactOnly &&
    variants.prefix.some(
      (p) => slug.length > p.length && slug.startsWith(p) && (p.startsWith("--") ? slug.endsWith("--") : true),
    )
  );
}

/**
 * An absolute path, POSIX or written the Windows way, with no control character (a NUL or a newline is no path an
 * agent ran in, and the index cuts a text at a NUL): a session's cwd that can decide where it belongs.
 */
export function isAbsolutePath(p: string): boolean {
  return (p.startsWith("/") || isWindowsShaped(p)) && !/[\u0000-\u001f]/.test(p);
}

/** Does a session's `header.cwd` lie in the workspace (the folder itself or below it)? */
export function cwdMatches(cwd: string, workspace: string): boolean {
  const caseInsensitive = isWindowsShaped(cwd) || isWindowsShaped(workspace);
  return isInside(cwd, workspace, caseInsensitive);
}
