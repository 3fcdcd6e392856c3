/** Why a compaction did not happen: the failure classes of docs/checkpoints.md#failures. */

export type FailureClass =
  | "auth"
  | "auth_unavailable"
  | "model_or_protocol"
  | "remote_error"
  | "timeout"
  | "serialization_unavailable"
  | "session_changed"
  | "session_busy";

export class CompactionFailure extends Error {
  constructor(
    readonly failureClass: FailureClass,
    message: string,
  ) {
    super(message);
    this.name = "CompactionFailure";
  }
}
