/**
 * The messages between the extension host and its search worker (src/node/search/searchWorker.ts): the host sends
 * the listing's targets as the library changes and asks queries; the worker indexes between queries and answers.
 */
import type { UnitRole } from "../../core/search/units.js";
import type { SearchHit } from "./queryIndex.js";
import type { IndexStats, UpdateResult } from "./searchIndex.js";
import type { IndexTarget } from "./targets.js";

export interface WorkerSetup {
  cacheDir: string;
  roots: string[];
  /** Set when the extension lists fewer sessions than the roots hold (pi's or OMP's left out): its own index. */
  variant: string;
}

export interface SearchRequest {
  text: string;
  limit: number;
  /** Only these files (the view's scope); null for every session. */
  files: string[] | null;
  /** Roles to search when the query names none (the results panel's filters). */
  roles: UnitRole[] | null;
}

export type ToWorker =
  /** `removed` given: only the changed sessions and the files gone; else the whole listing. */
  | { type: "sync"; targets: IndexTarget[]; removed?: string[] }
  | ({ type: "query"; id: number } & SearchRequest)
  /** Close the index (after the sync under way) and exit. */
  | { type: "close" };

/** What the index holds and what it still has to take in. */
export interface IndexState extends IndexStats {
  pending: number;
  /** Another window or process holds the writer's lock: this one only reads. */
  readOnly: boolean;
}

export type SearchAnswer =
  | { ok: true; hits: SearchHit[]; state: IndexState }
  /** The query could not be searched (only an exclusion, say): the message says why. */
  | { ok: false; message: string; state: IndexState };

export type FromWorker =
  | { type: "progress"; done: number; total: number }
  | { type: "synced"; result: UpdateResult; state: IndexState; ms: number }
  | { type: "answer"; id: number; answer: SearchAnswer }
  | { type: "failed"; message: string };
