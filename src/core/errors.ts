/**
 * The tool-error contract: expected failures are tool results with
 * `isError: true` and `structuredContent.error`, never protocol errors.
 *
 * @module
 */

/** Machine-readable failure codes a tool may report. */
export type ErrorCode =
  | "invalid_request"
  | "unreadable_output"
  | "capability_unavailable"
  | "provider_unavailable"
  | "provider_timeout"
  | "cancelled"
  | "artifact_integrity_mismatch"
  | "artifact_operation_failed"
  | "evidence_integrity_mismatch"
  | "truncated"
  | "permission_required"
  | "process_capture_failed"
  | "cleanup_incomplete"
  | "revision_conflict"
  | "outside_approved_root"
  | "configuration_invalid"
  | "target_unavailable"
  | "execution_failure"
  | "plan_stale"
  | "limit_exceeded";

/** Broad classes of failure, for clients that only branch on the kind. */
export type ErrorCategory =
  | "invalid_input"
  | "permission_required"
  | "unsupported_provider"
  | "integrity_mismatch"
  | "truncated"
  | "cancelled"
  | "timeout"
  | "unavailable"
  | "execution_failure";

/** What the caller can do next. */
export interface Remediation {
  /** A sentence naming the next step, such as the flag to add. */
  action: string;
  /** True when the fix needs the server to be restarted (for example a new permission flag). */
  restart_required: boolean;
}

/** The `structuredContent.error` object of a failed tool call. */
export interface ToolErrorBody {
  /** The failure code. */
  code: ErrorCode;
  /** The broad class of failure. */
  category: ErrorCategory;
  /** A sentence saying what went wrong. */
  message: string;
  /** Whether the same call may succeed later. */
  retryable: boolean;
  /** What to do next. */
  remediation: Remediation;
  /** Extra structured facts. */
  details?: Record<string, unknown>;
}

const DEFAULT_CATEGORY: Record<ErrorCode, ErrorCategory> = {
  invalid_request: "invalid_input",
  unreadable_output: "execution_failure",
  capability_unavailable: "unavailable",
  provider_unavailable: "unsupported_provider",
  provider_timeout: "timeout",
  cancelled: "cancelled",
  artifact_integrity_mismatch: "integrity_mismatch",
  artifact_operation_failed: "execution_failure",
  evidence_integrity_mismatch: "integrity_mismatch",
  truncated: "truncated",
  permission_required: "permission_required",
  process_capture_failed: "execution_failure",
  cleanup_incomplete: "execution_failure",
  revision_conflict: "invalid_input",
  outside_approved_root: "permission_required",
  configuration_invalid: "invalid_input",
  target_unavailable: "unavailable",
  execution_failure: "execution_failure",
  plan_stale: "invalid_input",
  limit_exceeded: "unavailable",
};

/** Options of a {@linkcode ToolFailure}. */
export interface ToolFailureOptions {
  /** The broad class. @default the code's usual category */
  category?: ErrorCategory;
  /** Whether retrying may help. @default false */
  retryable?: boolean;
  /** The next step for the caller. @default "Correct the request and call the tool again." */
  action?: string;
  /** Whether the fix needs a server restart. @default false */
  restartRequired?: boolean;
  /** Extra structured facts about the failure. */
  details?: Record<string, unknown>;
}

/**
 * An expected failure of a tool, reported to the model as a tool result.
 * Domain code throws it; the server turns it into `isError: true`.
 */
export class ToolFailure extends Error {
  /** The failure's code. */
  readonly code: ErrorCode;
  /** The serialisable body. */
  readonly body: ToolErrorBody;

  /** Creates a failure with a code, a message and what to do next. */
  constructor(code: ErrorCode, message: string, options: ToolFailureOptions = {}) {
    super(message);
    this.name = "ToolFailure";
    this.code = code;
    this.body = {
      code,
      category: options.category ?? DEFAULT_CATEGORY[code],
      message,
      retryable: options.retryable ?? false,
      remediation: {
        action: options.action ?? "Correct the request and call the tool again.",
        restart_required: options.restartRequired ?? false,
      },
      ...(options.details ? { details: options.details } : {}),
    };
  }
}

/** Shorthand for an `invalid_request` failure. */
export function invalidRequest(message: string, action?: string): ToolFailure {
  return new ToolFailure("invalid_request", message, action ? { action } : {});
}
