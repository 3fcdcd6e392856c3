/**
 * Sessions from a tree sketch, as a test draws them: one entry per line, indented by two spaces per level under its
 * parent (a line at the left margin is a root), as `id role text`. The entries are timestamped in line order, so
 * pi's order of siblings (by timestamp, then file order) is the order drawn.
 *
 *   sketch(`
 *     u1 user hi
 *       a1 assistant hello
 *         u2 user left
 *         u3 user right
 *   `)
 *
 * gives the records of that tree (a header first): `jsonl(...sketch(...))` is its file text.
 */
import { header, message, type HeaderOptions } from "./builders.js";

type Role = Parameters<typeof message>[2];

export interface SketchLine {
  id: string;
  parentId: string | null;
  role: Role;
  text: string;
}

/** The lines of a sketch with each entry's parent (the nearest line above it, one level up). */
export function sketchLines(sketch: string): SketchLine[] {
  const rows = sketch.split("\n").filter((l) => l.trim());
  const margin = Math.min(...rows.map((l) => l.length - l.trimStart().length));
  const stack: { depth: number; id: string }[] = [];
  return rows.map((line, i) => {
    const indent = line.length - line.trimStart().length - margin;
    if (indent % 2) throw new Error(`sketch line ${i + 1}: indent by two spaces per level`);
    const depth = indent / 2;
    const [id, role, ...words] = line.trim().split(/\s+/);
    if (!id || !role) throw new Error(`sketch line ${i + 1}: write "id role text"`);
    while (stack.length && stack[stack.length - 1]!.depth >= depth) stack.pop();
    const parent = stack[stack.length - 1];
    if (depth > 0 && parent?.depth !== depth - 1) throw new Error(`sketch line ${i + 1}: no parent one level up`);
    stack.push({ depth, id });
    return { id, parentId: parent?.id ?? null, role: role as Role, text: words.join(" ") };
  });
}

/** The records of a sketched session: its header, then one message per line, in line order. */
export function sketch(text: string, o: HeaderOptions = {}): Record<string, unknown>[] {
  return [header(o), ...sketchLines(text).map((l, i) => message(l.id, l.parentId, l.role, l.text, { time: i + 1 }))];
}
