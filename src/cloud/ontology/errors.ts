/**
 * Errors of the ontology layer. Each has a plain sentence saying what was
 * wrong and what is accepted, and survives the trip from the worker (see
 * {@link errorToWire} and {@link errorFromWire}).
 *
 * @module
 */

/** A bad argument: unknown format, relation group, IRI, or a value out of range. */
export class OntologyArgumentError extends Error {
  /** The class name, kept when the error crosses from the worker. */
  override name = "OntologyArgumentError";
}

/** A SPARQL text that does not parse; `line` and `column` are 1-based. */
export class SparqlSyntaxError extends Error {
  /** The class name, kept when the error crosses from the worker. */
  override name = "SparqlSyntaxError";
  /** Wraps a parser message with its position (1-based line and column, null when unknown). */
  constructor(message: string, readonly line: number | null, readonly column: number | null) {
    super(message);
  }
}

/** Why a query was refused before it ran. */
export type SparqlRefusal = "update" | "service" | "dataset_clause" | "too_long" | "empty";

/** A query refused before execution (updates, SERVICE, FROM / FROM NAMED, size). */
export class SparqlRefusedError extends Error {
  /** The class name, kept when the error crosses from the worker. */
  override name = "SparqlRefusedError";
  /** Records the refusal's reason, as a stable code. */
  constructor(message: string, readonly reason: SparqlRefusal) {
    super(message);
  }
}

/** A query stopped at its time limit (its worker was terminated). */
export class SparqlTimeoutError extends Error {
  /** The class name, kept when the error crosses from the worker. */
  override name = "SparqlTimeoutError";
  /** Records the limit that was reached, in milliseconds. */
  constructor(message: string, readonly timeoutMs: number) {
    super(message);
  }
}

/** The SPARQL engine refused or failed a query that parsed. */
export class SparqlExecutionError extends Error {
  /** The class name, kept when the error crosses from the worker. */
  override name = "SparqlExecutionError";
}

/** The worker that holds the store could not start or died. */
export class OntologyWorkerError extends Error {
  /** The class name, kept when the error crosses from the worker. */
  override name = "OntologyWorkerError";
}

/** An error as sent between the worker and the main thread. */
export interface WireError {
  /** The error class name. */
  name: string;
  /** The message. */
  message: string;
  /** Class-specific fields. */
  line?: number | null;
  /** Class-specific fields. */
  column?: number | null;
  /** Class-specific fields. */
  reason?: SparqlRefusal;
  /** Class-specific fields. */
  timeoutMs?: number;
}

/** Flattens an error for postMessage. */
export function errorToWire(error: unknown): WireError {
  if (error instanceof SparqlSyntaxError) {
    return { name: error.name, message: error.message, line: error.line, column: error.column };
  }
  if (error instanceof SparqlRefusedError) {
    return { name: error.name, message: error.message, reason: error.reason };
  }
  if (error instanceof SparqlTimeoutError) {
    return { name: error.name, message: error.message, timeoutMs: error.timeoutMs };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}

/** Rebuilds the error class of a flattened error. */
export function errorFromWire(wire: WireError): Error {
  switch (wire.name) {
    case "SparqlSyntaxError":
      return new SparqlSyntaxError(wire.message, wire.line ?? null, wire.column ?? null);
    case "SparqlRefusedError":
      return new SparqlRefusedError(wire.message, wire.reason ?? "update");
    case "SparqlTimeoutError":
      return new SparqlTimeoutError(wire.message, wire.timeoutMs ?? 0);
    case "SparqlExecutionError":
      return new SparqlExecutionError(wire.message);
    case "OntologyArgumentError":
      return new OntologyArgumentError(wire.message);
    case "RangeError":
      return new RangeError(wire.message);
    default: {
      const error = new OntologyWorkerError(wire.message);
      return error;
    }
  }
}
