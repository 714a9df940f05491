/**
 * The errors that steer a scan: a checksum failure, a limit that stops the
 * walk, a finished capture, and which of them end the whole scan.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import type { IntegrityContradiction } from "./model.ts";
import { HashWorkerError } from "./off_thread_hash.ts";

/** A checksum failure under the `fail` integrity policy. */
export class IntegrityFailure extends Error {
  constructor(readonly contradiction: IntegrityContradiction) {
    super(
      `${contradiction.logical_path}: ${contradiction.check} check failed (declared ${contradiction.declared}, observed ${contradiction.observed})`,
    );
    this.name = "IntegrityFailure";
  }
}

/** The traversal stopped at a limit; the graph so far is kept and marked incomplete. */
export class StopScan extends Error {}

/** The captured member was read: nothing more is needed. */
export class CaptureDone extends Error {}

/** The capture's own consumer failed (a write, a check): it ends the scan with that error. */
export class SinkFailure extends Error {
  /** Wraps what the consumer threw. */
  constructor(readonly error: unknown) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/** Errors that end the whole scan rather than one member. */
export function isFatal(error: unknown): boolean {
  return error instanceof StopScan || error instanceof CaptureDone ||
    error instanceof SinkFailure || isAbort(error) ||
    error instanceof IntegrityFailure || error instanceof HashWorkerError ||
    (error instanceof ToolFailure && error.code === "outside_approved_root");
}

/** Whether the error is an abort of the scan signal. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError" ||
    (error instanceof Error && error.name === "AbortError");
}

/** A short message for any thrown value. */
export function message(error: unknown): string {
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
