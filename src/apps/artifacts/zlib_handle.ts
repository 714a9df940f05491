/**
 * The synchronous engine under a node:zlib stream (its `_handle` and the
 * `_writeState` it reports into), which the gzip and zstd decoders drive
 * one call at a time to know exactly where each member or frame ends.
 *
 * @module
 */

/** The engine's synchronous write: inflates `input[inOffset..+inLength]` into `output`. */
export interface SyncZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  reset(): void;
  onerror?: (message: string, errno: number) => void;
}

/** A node:zlib stream's engine, and the state it writes after each call (out left, in left). */
export interface SyncZlib {
  handle: SyncZlibHandle;
  /** `[available out, available in]` after the last `writeSync`. */
  writeState: Uint32Array;
  /** Releases the engine. */
  close(): void;
}

/**
 * The engine of `stream` (a fresh node:zlib stream); throws, saying `what` decoding is
 * unavailable, when this runtime's node:zlib does not expose it.
 */
export function syncZlibOf(stream: unknown, what: string): SyncZlib {
  const internals = stream as {
    _handle?: SyncZlibHandle | null;
    _writeState?: Uint32Array;
    close(): void;
  };
  const handle = internals._handle;
  const writeState = internals._writeState;
  if (!handle || typeof handle.writeSync !== "function" || !(writeState instanceof Uint32Array)) {
    internals.close();
    throw new Error(
      `${what} decoding is unavailable: this Deno's node:zlib lacks the expected decoder`,
    );
  }
  return { handle, writeState, close: () => internals.close() };
}
