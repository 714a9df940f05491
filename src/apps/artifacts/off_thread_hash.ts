/**
 * SHA-256 on a worker thread, for the root of a file scan: the root's digest
 * is re-verified while its members are hashed on the main thread, so the two
 * hashes of the same bytes run side by side instead of one after the other.
 * Chunks are copied to the worker; at most {@linkcode OFF_THREAD_WINDOW}
 * bytes wait there unhashed, the reader pausing until the worker catches up.
 *
 * @module
 */

const WORKER_URL = new URL("./hash_worker.ts", import.meta.url);

/** Bytes sent to the worker and not yet hashed, at most. */
export const OFF_THREAD_WINDOW = 16 * 1024 * 1024;

/** A SHA-256 whose updates are hashed on a worker. */
export class OffThreadHash {
  readonly #worker: Worker;
  #outstanding = 0;
  #failure: Error | null = null;
  #waiting: Array<() => void> = [];
  #digest: ((hex: string) => void) | null = null;
  #closed = false;

  /** Starts the worker. */
  constructor() {
    this.#worker = new Worker(WORKER_URL.href, { type: "module" });
    this.#worker.onmessage = (event: MessageEvent<number | { digest: string }>): void => {
      const message = event.data;
      if (typeof message === "number") {
        this.#outstanding -= message;
        this.#wake();
      } else {
        this.#digest?.(message.digest);
      }
    };
    this.#worker.onerror = (event: ErrorEvent): void => {
      event.preventDefault();
      this.#failure = new Error(`The hashing worker failed: ${event.message}`);
      this.#wake();
      this.#digest?.("");
    };
  }

  /** Sends a copy of `chunk` to be hashed (the caller keeps its own bytes). */
  update(chunk: Uint8Array): void {
    if (this.#closed || chunk.byteLength === 0) return;
    const copy = chunk.slice();
    this.#outstanding += copy.byteLength;
    this.#worker.postMessage(copy, [copy.buffer]);
  }

  /** Resolves once the bytes waiting on the worker are within the window. */
  ready(): Promise<void> {
    if (this.#outstanding <= OFF_THREAD_WINDOW || this.#failure) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** `stream`, pulled no faster than the worker hashes what it is sent. */
  throttle(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = stream.getReader();
    return new ReadableStream<Uint8Array>({
      pull: async (controller): Promise<void> => {
        await this.ready();
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason): Promise<void> => reader.cancel(reason),
    }, { highWaterMark: 0 });
  }

  /**
   * The lowercase hex digest of everything sent; ends the worker. Rejects
   * when the worker failed or was ended first.
   */
  async digest(): Promise<string> {
    if (this.#failure || this.#closed) {
      this.destroy();
      throw this.#failure ?? new Error("The hashing worker was ended before its digest.");
    }
    const answer = new Promise<string>((resolve) => this.#digest = resolve);
    this.#worker.postMessage("digest");
    const hex = await answer;
    this.#digest = null;
    this.destroy();
    if (this.#failure) throw this.#failure;
    return hex;
  }

  /** Ends the worker (idempotent); a digest still awaited then rejects. */
  destroy(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#worker.terminate();
    if (this.#digest) {
      this.#failure ??= new Error("The hashing worker was ended before its digest.");
      this.#digest("");
      this.#digest = null;
    }
    this.#wake();
  }

  /**
   * Whether a worker can be started here: this process may read the worker's
   * module (a server started with `--allow-read` of its sources).
   */
  static available(): boolean {
    try {
      return Deno.permissions.querySync({ name: "read", path: WORKER_URL }).state === "granted";
    } catch {
      return false;
    }
  }

  #wake(): void {
    if (this.#outstanding > OFF_THREAD_WINDOW && !this.#failure && !this.#closed) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
