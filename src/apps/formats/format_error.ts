/**
 * The error a format reader throws for bytes that are not a usable file of
 * its format: each reader has its own subclass, named after it.
 *
 * @module
 */

/** Thrown by a format reader when the bytes are not a usable file of its format. */
export class FormatParseError extends Error {
  /** File offset of the offending bytes, or `null` when it concerns the whole file. */
  readonly offset: number | null;

  /**
   * Creates the error; its `name` is the subclass's (`ElfParseError`, …).
   *
   * @param message A plain sentence saying what is wrong.
   * @param offset File offset of the offending bytes, if known.
   */
  constructor(message: string, offset: number | null = null) {
    super(message);
    this.name = new.target.name;
    this.offset = offset;
  }
}
