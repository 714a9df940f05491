/**
 * SHA-256 on another thread: a scan copies the bytes of a large root file
 * to a worker (`hash_worker.ts`) as it parses them, and the worker hashes
 * them meanwhile. The bytes travel in buffers of 1 MiB that move to the
 * worker and back (no buffer is allocated per chunk); the worker applies
 * every batch in order and answers with the digests of the jobs the batch
 * ended. Bytes sent and not yet hashed are bounded: past
 * {@linkcode MAX_IN_FLIGHT_BYTES} the reader waits
 * ({@linkcode OffThreadHasher.drained}).
 *
 * Where no worker can be started (the worker's module is not readable, or
 * the runtime has no workers) {@linkcode OffThreadHasher.start} returns
 * null and the caller hashes on its own thread.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** The kinds of step in a batch's `ops`. */
export const OP_DATA = 0;
/** A job ends: its digest is answered. */
export const OP_END = 1;
/** A job is given up. */
export const OP_DROP = 2;

/**
 * What the hasher posts to the worker: a buffer (moved, not copied) whose
 * first `length` bytes the steps refer to, and the steps as flat numbers,
 * four per step: kind (`OP_*`), job, start, end.
 */
export interface HashBatch {
  buffer: ArrayBuffer;
  length: number;
  ops: number[];
}

/** The worker's answer to one batch. */
export interface HashBatchReply {
  /** The batch's buffer, moved back for the next batch. */
  buffer: ArrayBuffer;
  /** The bytes of it that were hashed. */
  taken: number;
  /** `[job, hex digest]` of each job the batch ended. */
  digests: [number, string][];
}

/** The worker failed or was closed: the digests it owed will not come. */
export class HashWorkerError extends Error {
  override name = "HashWorkerError";
}

/** Bytes gathered before a batch is posted. */
export const BATCH_BYTES: number = 1 << 20;
/** Bytes posted and not yet hashed beyond which the reader is asked to wait. */
export const MAX_IN_FLIGHT_BYTES: number = 32 << 20;

const WORKER_URL = new URL("./hash_worker.ts", import.meta.url);

/** A streaming SHA-256, on this thread or on a worker. */
export interface StreamingHash {
  update(chunk: Uint8Array): void;
  /** The hex digest (a promise when another thread computes it). */
  digest(): string | Promise<string>;
  /** Gives the job up (no digest will be asked). */
  destroy(): void;
}

/** A SHA-256 on this thread. */
export function inlineHash(): StreamingHash {
  const hash = createHash("sha256");
  return {
    update: (chunk) => void hash.update(chunk),
    digest: () => hash.digest("hex"),
    destroy: () => void hash.destroy(),
  };
}

/** Whether this process may load the worker's module (never prompts). */
function mayLoad(url: URL): boolean {
  if (typeof Worker !== "function" || url.protocol !== "file:") return false;
  try {
    return Deno.permissions.querySync({ name: "read", path: url }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * One worker hashing for one scan. Jobs are applied in the order their
 * bytes were given; a job's digest is owed once its batch is posted (a full
 * batch is posted at once, the rest by {@linkcode flush}).
 */
export class OffThreadHasher {
  readonly #worker: Worker;
  #batch: Uint8Array<ArrayBuffer> = new Uint8Array(BATCH_BYTES);
  #used = 0;
  #ops: number[] = [];
  /** Buffers the worker handed back, for the next batches. */
  readonly #free: ArrayBuffer[] = [];
  #inFlight = 0;
  #nextJob = 1;
  readonly #owed = new Map<
    number,
    { resolve: (hex: string) => void; reject: (e: Error) => void }
  >();
  #waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  #failure: HashWorkerError | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.onmessage = (event: MessageEvent<HashBatchReply>): void => {
      const { buffer, taken, digests } = event.data;
      this.#inFlight -= taken;
      this.#free.push(buffer);
      for (const [job, hex] of digests) {
        const owed = this.#owed.get(job);
        this.#owed.delete(job);
        owed?.resolve(hex);
      }
      if (this.#inFlight <= MAX_IN_FLIGHT_BYTES / 2 && this.#waiters.length > 0) {
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const waiter of waiters) waiter.resolve();
      }
    };
    worker.onerror = (event: ErrorEvent): void => {
      event.preventDefault();
      this.#fail(new HashWorkerError(`The hashing worker failed: ${event.message}`));
    };
    worker.onmessageerror = (): void => {
      this.#fail(new HashWorkerError("The hashing worker sent a message that cannot be read."));
    };
  }

  /**
   * Starts a worker, or returns null when none can be started here.
   * `url` is for tests (a module that is not the hashing worker).
   */
  static start(url: URL = WORKER_URL): OffThreadHasher | null {
    if (!mayLoad(url)) return null;
    try {
      return new OffThreadHasher(new Worker(url, { type: "module" }));
    } catch {
      return null;
    }
  }

  /** Why the worker stopped, or null while it runs. */
  get failure(): HashWorkerError | null {
    return this.#failure;
  }

  /** Bytes posted and not yet hashed. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Whether the reader should wait for {@linkcode drained} before giving more bytes. */
  get congested(): boolean {
    return this.#inFlight > MAX_IN_FLIGHT_BYTES;
  }

  /** Resolves once the bytes in flight fall to half the bound; rejects if the worker fails. */
  drained(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#inFlight <= MAX_IN_FLIGHT_BYTES / 2) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** A new job: its bytes, then its digest (answered once the worker has hashed them). */
  job(): StreamingHash {
    const job = this.#nextJob++;
    let ended = false;
    return {
      update: (chunk) => this.#update(job, chunk),
      digest: () => {
        if (this.#failure) return Promise.reject(this.#failure);
        if (ended) return Promise.reject(new HashWorkerError("The digest was already taken."));
        ended = true;
        const digest = new Promise<string>((resolve, reject) => {
          this.#owed.set(job, { resolve, reject });
        });
        this.#ops.push(OP_END, job, 0, 0);
        this.flush();
        return digest;
      },
      destroy: () => {
        if (ended || this.#failure) return;
        ended = true;
        this.#ops.push(OP_DROP, job, 0, 0);
      },
    };
  }

  #update(job: number, chunk: Uint8Array): void {
    if (this.#failure) throw this.#failure;
    // Copied into the batch (split across batches when larger than the room left).
    let at = 0;
    while (at < chunk.byteLength) {
      const take = Math.min(BATCH_BYTES - this.#used, chunk.byteLength - at);
      this.#batch.set(
        at === 0 && take === chunk.byteLength ? chunk : chunk.subarray(at, at + take),
        this.#used,
      );
      this.#ops.push(OP_DATA, job, this.#used, this.#used + take);
      this.#used += take;
      at += take;
      if (this.#used === BATCH_BYTES) this.flush();
    }
  }

  /** Posts what has gathered, so every job ended so far will be answered. */
  flush(): void {
    if (this.#ops.length === 0 || this.#failure) return;
    const batch: HashBatch = { buffer: this.#batch.buffer, length: this.#used, ops: this.#ops };
    const reused = this.#free.pop();
    this.#batch = reused ? new Uint8Array(reused) : new Uint8Array(BATCH_BYTES);
    this.#used = 0;
    this.#ops = [];
    this.#inFlight += batch.length;
    // The buffer moves to the worker, which hands it back with its answer.
    this.#worker.postMessage(batch, [batch.buffer]);
  }

  #fail(error: HashWorkerError): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#worker.terminate();
    for (const owed of this.#owed.values()) owed.reject(error);
    this.#owed.clear();
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters = [];
  }

  /** Stops the worker; digests still owed are rejected. */
  close(): void {
    this.#fail(new HashWorkerError("The hashing worker was closed."));
  }
}
