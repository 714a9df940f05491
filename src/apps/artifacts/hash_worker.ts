/**
 * Entry of a hashing worker: keeps one SHA-256 per job and applies each
 * batch the scanner's {@link OffThreadHasher} posts, in order, answering
 * every batch with its buffer (handed back for reuse), the bytes it took and
 * the digests it finished.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import { type HashBatch, type HashBatchReply, OP_DATA, OP_DROP } from "./off_thread_hash.ts";

/** The parts of the worker global scope used here. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<HashBatch>) => void) | null;
  postMessage(message: HashBatchReply, transfer: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;
const hashes = new Map<number, Hash>();

scope.onmessage = (event: MessageEvent<HashBatch>): void => {
  const { buffer, length, ops } = event.data;
  const bytes = new Uint8Array(buffer, 0, length);
  const digests: [number, string][] = [];
  for (let i = 0; i < ops.length; i += 4) {
    const kind = ops[i]!;
    const job = ops[i + 1]!;
    if (kind === OP_DROP) {
      hashes.delete(job);
      continue;
    }
    let hash = hashes.get(job);
    if (hash === undefined) {
      hash = createHash("sha256");
      hashes.set(job, hash);
    }
    if (kind === OP_DATA) {
      hash.update(bytes.subarray(ops[i + 2]!, ops[i + 3]!));
    } else {
      digests.push([job, hash.digest("hex")]);
      hashes.delete(job);
    }
  }
  scope.postMessage({ buffer, taken: length, digests }, [buffer]);
};
