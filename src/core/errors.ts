/**
 * The tool-error contract: expected failures are tool results with
 * `isError: true` and `structuredContent.error`, never protocol errors.
 *
 * @module
 */

/** The failure codes core itself reports; every workbench may use them. */
export type CoreErrorCode =
  | "invalid_request"
  | "not_found"
  | "capability_unavailable"
  | "cancelled"
  | "evidence_integrity_mismatch"
  | "truncated"
  | "permission_required"
  | "access_denied"
  | "rate_limited"
  | "outside_approved_root"
  | "configuration_invalid"
  | "target_unavailable"
  | "execution_failure"
  | "limit_exceeded";

/**
 * A machine-readable failure code: one of core's, or one a workbench declared
 * with {@linkcode declareErrorCodes} (snake_case).
 */
export type ErrorCode = CoreErrorCode | (string & Record<never, never>);

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

const CORE_CATEGORIES: Record<CoreErrorCode, ErrorCategory> = {
  invalid_request: "invalid_input",
  not_found: "invalid_input",
  capability_unavailable: "unavailable",
  cancelled: "cancelled",
  evidence_integrity_mismatch: "integrity_mismatch",
  truncated: "truncated",
  permission_required: "permission_required",
  access_denied: "permission_required",
  rate_limited: "unavailable",
  outside_approved_root: "permission_required",
  configuration_invalid: "invalid_input",
  target_unavailable: "unavailable",
  execution_failure: "execution_failure",
  limit_exceeded: "unavailable",
};

const categories = new Map<string, ErrorCategory>(Object.entries(CORE_CATEGORIES));

/**
 * Declares a workbench's own failure codes with their usual category. A code
 * may be declared again only with the same category.
 *
 * @example
 * ```ts
 * import { declareErrorCodes, ToolFailure } from "./errors.ts";
 * declareErrorCodes({ dataset_stale: "invalid_input" });
 * new ToolFailure("dataset_stale", "The dataset changed.").body.category; // "invalid_input"
 * ```
 */
export function declareErrorCodes(codes: Readonly<Record<string, ErrorCategory>>): void {
  for (const [code, category] of Object.entries(codes)) {
    if (!/^[a-z][a-z0-9_]*$/.test(code)) {
      throw new TypeError(`Error code ${JSON.stringify(code)} is not snake_case`);
    }
    const known = categories.get(code);
    if (known !== undefined && known !== category) {
      throw new RangeError(`Error code ${code} is already declared as ${known}, not ${category}`);
    }
    categories.set(code, category);
  }
}

/** The usual category of a code; `execution_failure` for a code nobody declared. */
export function categoryOf(code: ErrorCode): ErrorCategory {
  return categories.get(code) ?? "execution_failure";
}

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
      category: options.category ?? categoryOf(code),
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
