/**
 * The error graph queries throw on input they cannot answer for.
 *
 * @module
 */

import { InvalidArgumentError } from "../model/errors.ts";

/**
 * A graph query was given input it cannot answer for; the message says what
 * is accepted. It is an {@link InvalidArgumentError}, so the MCP layer
 * reports it as a bad argument like every other cloud domain error.
 */
export class GraphQueryError extends InvalidArgumentError {
  /** Creates the error with a sentence saying what was wrong and what is accepted. */
  constructor(message: string) {
    super(message);
    this.name = "GraphQueryError";
  }
}
