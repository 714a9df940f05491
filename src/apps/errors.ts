/**
 * The failure codes the apps workbench reports beyond core's, each with its
 * usual category. Declared with core's error contract when this module loads.
 *
 * @module
 */

import { declareErrorCodes, type ErrorCategory } from "../core/errors.ts";

/** Apps failure codes and their categories. */
export const APPS_ERROR_CODES = {
  unreadable_output: "execution_failure",
  provider_unavailable: "unsupported_provider",
  provider_timeout: "timeout",
  artifact_integrity_mismatch: "integrity_mismatch",
  artifact_operation_failed: "execution_failure",
  process_capture_failed: "execution_failure",
  cleanup_incomplete: "execution_failure",
  revision_conflict: "invalid_input",
  plan_stale: "invalid_input",
} as const satisfies Record<string, ErrorCategory>;

/** An apps failure code. */
export type AppsErrorCode = keyof typeof APPS_ERROR_CODES;

declareErrorCodes(APPS_ERROR_CODES);
