/**
 * The names the `pi-openai-blackmagic-compact` Pi package gives its checkpoints. A compaction whose
 * `details.replay.namespace` is this namespace is replayed by that package on the next request; the timeline entry
 * (a `custom` entry of this type) follows each of its compactions and records the method and any failure class.
 */
export const BLACKMAGIC_NAMESPACE = "pi-openai-blackmagic-compact/1";
export const TIMELINE_TYPE = "pi-openai-blackmagic-compact/compaction-timeline/1";
