/** Questions asked of a parsed session: the path to a leaf, and the model and thinking level in effect there. */
import type { Entry } from "./entry.js";
import type { PathSettings, Session } from "./model.js";

/** Ids from the root to `leafId` (inclusive), stopping at a missing parent or a repeated id. */
export function pathTo(session: Session, leafId: string | null): Entry[] {
  const path: Entry[] = [];
  if (leafId === null) return path;
  const seen = new Set<string>();
  let current = session.byId.get(leafId);
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId ? session.byId.get(current.parentId) : undefined;
  }
  return path.reverse();
}

export function settingsAt(session: Session, leafId: string | null = session.leafId): PathSettings {
  let thinkingLevel: string | undefined = "off";
  let model: PathSettings["model"] = null;
  const models: Record<string, string> = {};
  let explicitDefault = false;
  for (const entry of pathTo(session, leafId)) {
    if (entry.type === "thinking_level_change") {
      const d = entry.data;
      thinkingLevel =
        session.flavor === "omp"
          ? ((d.thinkingLevel as string | null | undefined) ?? "off")
          : (d.thinkingLevel as string | undefined);
    } else if (entry.type === "model_change") {
      const d = entry.data;
      if (typeof d.model === "string") {
        const role = typeof d.role === "string" ? d.role : "default";
        models[role] = d.model;
        if (role === "default") {
          explicitDefault = true;
          model = splitModel(d.model);
        }
      } else {
        model = { provider: d.provider as string, modelId: d.modelId as string };
      }
    } else if (entry.type === "message" && entry.role === "assistant") {
      // The reader kept the assistant's provider and model: no body is parsed for this walk.
      if (session.flavor === "omp") {
        if (!explicitDefault) {
          models.default = `${String(entry.provider)}/${String(entry.model)}`;
          model = { provider: entry.provider as string, modelId: entry.model as string };
        }
      } else {
        model = { provider: entry.provider as string, modelId: entry.model as string };
      }
    }
  }
  return { thinkingLevel, model, models };
}

export function splitModel(spec: string): { provider: string; modelId: string } {
  const slash = spec.indexOf("/");
  return slash < 0
    ? { provider: "", modelId: spec }
    : { provider: spec.slice(0, slash), modelId: spec.slice(slash + 1) };
}
