/**
 * The error graph queries throw on input they cannot answer for.
 *
 * @module
 */

/** A graph query was given input it cannot answer for; the message says what is accepted. */
export class GraphQueryError extends Error {
  /** Creates the error with a sentence saying what was wrong and what is accepted. */
  constructor(message: string) {
    super(message);
    this.name = "GraphQueryError";
  }
}
