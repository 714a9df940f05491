/**
 * Member content as chunks: hashing a whole source, replaying a sniffed head
 * in front of the rest, a parser's view that leaves the rest to be hashed,
 * collecting a stream into memory under a limit, and keeping a captured
 * member's bytes.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import type { ByteSource } from "./byte_source.ts";
import { ArchiveLimitError } from "./errors.ts";

/** Hashes a whole source. */
export async function hashSource(source: ByteSource, signal?: AbortSignal): Promise<string> {
  const hash: Hash = createHash("sha256");
  for await (const chunk of source.stream(0, source.size, signal)) hash.update(chunk);
  return hash.digest("hex");
}

/** The parts joined into one array (the part itself when there is one). */
export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * The content of one member as a chunk source: the head chunks, then the rest
 * of the reader, each chunk counted (and hashed) as it passes. Parsers read it
 * through {@linkcode parserView}, whose cancellation does not stop the
 * source, so whatever a parser leaves unread is still hashed by
 * {@linkcode drainSource}.
 */
export interface ChunkSource {
  next(): Promise<Uint8Array | null>;
}

/**
 * The head chunks, then the rest of `rest`, each passed to `count`; a count
 * that returns a promise (a hashing worker asking the reader to wait) holds
 * the next chunk until it settles.
 */
export function replay(
  head: Uint8Array[],
  rest: ReadableStreamDefaultReader<Uint8Array> | null,
  count: (chunk: Uint8Array) => void | Promise<void>,
): ChunkSource {
  let index = 0;
  let finished = false;
  return {
    async next(): Promise<Uint8Array | null> {
      if (index < head.length) {
        const chunk = head[index++]!;
        const wait = count(chunk);
        if (wait) await wait;
        return chunk;
      }
      if (!rest || finished) return null;
      const { value, done } = await rest.read();
      if (done) {
        finished = true;
        return null;
      }
      const wait = count(value);
      if (wait) await wait;
      return value;
    },
  };
}

/** A stream over the source whose cancellation leaves the source readable. */
export function parserView(source: ChunkSource): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller): Promise<void> {
      const chunk = await source.next();
      if (chunk === null) controller.close();
      else controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
}

/** Reads the source to its end. */
export async function drainSource(source: ChunkSource): Promise<void> {
  while ((await source.next()) !== null) { /* counted and hashed on the way */ }
}

/** A small stream (a link target) read into memory; throws an ArchiveLimitError past `limit` bytes. */
export async function collect(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  what: string,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > limit) {
      throw new ArchiveLimitError(
        "max_entry_bytes",
        total,
        limit,
        `${what} is larger than the ${limit} bytes it may hold in memory`,
      );
    }
    parts.push(chunk);
  }
  return concat(parts);
}

/**
 * The bytes of a member being captured, as they stream past. When its size
 * is declared (a tar header, a zip directory) they are copied into one array
 * of that size, so holding a member costs its size once, not its chunks and
 * then a joined copy of them; content that turns out longer than declared,
 * or of unknown size, is kept as chunks and joined at the end.
 */
export class MemberBytes {
  #whole: Uint8Array | null;
  #filled = 0;
  #parts: Uint8Array[] = [];

  /** Prepares for `declared` bytes (null: unknown); nothing is set aside past `maxBytes`. */
  constructor(declared: number | null, maxBytes: number) {
    this.#whole = declared !== null && declared > 0 && declared <= maxBytes
      ? new Uint8Array(declared)
      : null;
  }

  /** Keeps a copy of (or, past the declared size, a reference to) the next chunk. */
  push(chunk: Uint8Array): void {
    const whole = this.#whole;
    if (whole !== null) {
      if (this.#filled + chunk.length <= whole.length) {
        whole.set(chunk, this.#filled);
        this.#filled += chunk.length;
        return;
      }
      this.#parts.push(whole.subarray(0, this.#filled));
      this.#whole = null;
    }
    this.#parts.push(chunk);
  }

  /** Everything kept so far, as one array. */
  bytes(): Uint8Array {
    const whole = this.#whole;
    if (whole !== null) {
      return this.#filled === whole.length ? whole : whole.subarray(0, this.#filled);
    }
    return concat(this.#parts);
  }

  /** Lets go of what was kept. */
  clear(): void {
    this.#whole = null;
    this.#filled = 0;
    this.#parts = [];
  }
}
