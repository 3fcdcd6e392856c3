/**
 * A compaction's `details` and a Blackmagic timeline entry's `data`, narrowed once by zod (docs/checkpoints.md): each
 * nested object the checkpoint views read is typed, or undefined when the file holds something else there (a field
 * of the wrong shape is absent, never an error: the views show what is missing). Unknown keys pass through, so the
 * record is as written.
 */
import * as z from "zod";

const object = z.record(z.string(), z.unknown());
/** A nested object, or undefined when the value is anything else. */
const nested = object.optional().catch(undefined);
const unknownArray = z.array(z.unknown()).optional().catch(undefined);

const checkpointSchema = z.looseObject({ artifact: unknownArray });
const replaySchema = z.looseObject({ replacedItemHashes: unknownArray });
const usageSchema = z.looseObject({ cost: nested });

/** Compaction `details` (pi's file lists, OMP's fields, Blackmagic's schema 1), nested objects narrowed. */
const detailsSchema = z.looseObject({
  identity: nested,
  checkpoint: checkpointSchema.optional().catch(undefined),
  replay: replaySchema.optional().catch(undefined),
  producer: nested,
  lineage: nested,
  /** A Blackmagic success keeps pi's file lists here; a fallback and pi keep them at the top. */
  local: nested,
  usage: nested,
});

export type CompactionDetails = z.infer<typeof detailsSchema>;
export type SummaryUsage = z.infer<typeof usageSchema>;

/** `details` narrowed, or null when they are not an object. */
export function compactionDetails(value: unknown): CompactionDetails | null {
  const parsed = detailsSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** A compaction's own `usage` (pi-ai's shape, its `cost` narrowed), or null when it is not an object. */
export function summaryUsageOf(value: unknown): SummaryUsage | null {
  const parsed = usageSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Any value that is an object, as a record (a custom entry's `data`, an artifact item), else undefined. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  const parsed = object.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
