/** A problem found while reading a session file. `line` is the 1-based physical line (0 = the file as a whole). */
export interface Diagnostic {
  line: number;
  severity: "error" | "warning";
  code: DiagnosticCode;
  message: string;
}

export type DiagnosticCode =
  | "bom"
  | "malformed-json"
  | "too-deep"
  | "truncated-last-line"
  | "not-an-object"
  | "missing-type"
  | "missing-id"
  | "missing-parent-id"
  | "invalid-timestamp"
  | "duplicate-id"
  | "self-parent"
  | "orphan"
  | "parent-cycle"
  | "schema"
  | "stray-title"
  | "unknown-entry-type"
  | "unknown-role"
  | "unknown-version"
  | "dangling-first-kept";

/** Why a whole file was refused. A rejected file yields no tree. */
export interface Rejection {
  line: number;
  code: RejectionCode;
  message: string;
}

export type RejectionCode =
  "empty-file" | "no-header" | "invalid-header" | "record-before-header" | "duplicate-header" | "unreadable";
