/**
 * Worker side of {@linkcode OffThreadHash}: SHA-256 of the chunks it is
 * sent, in order. Each chunk is acknowledged with its length once hashed;
 * `"digest"` answers with the lowercase hex digest.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** The worker's global scope, as much of it as this module uses. */
interface HashWorkerScope {
  onmessage: ((event: MessageEvent<Uint8Array | "digest">) => void) | null;
  postMessage(message: number | { digest: string }): void;
}

const scope = globalThis as unknown as HashWorkerScope;
const hash = createHash("sha256");

scope.onmessage = (event): void => {
  const message = event.data;
  if (message === "digest") {
    scope.postMessage({ digest: hash.digest("hex") });
    return;
  }
  hash.update(message);
  scope.postMessage(message.byteLength);
};
