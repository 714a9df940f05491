/**
 * Entry of the ontology worker: holds one {@link OntologyHost} and answers
 * the engine's calls one at a time. Started by `engine.ts`; the engine
 * terminates it to stop a query at its time limit.
 *
 * @module
 */

import { errorToWire } from "./errors.ts";
import type { OntologyCall, OntologyHost, OntologyReply } from "./host.ts";

/** The parts of the worker global scope used here. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<OntologyCall>) => void) | null;
  postMessage(message: OntologyReply): void;
}

const scope = globalThis as unknown as WorkerScope;
// The host (and the oxigraph engine it initialises) loads after the message
// handler is in place, so no request can arrive before anyone listens.
const host: Promise<OntologyHost> = import("./host.ts").then((module) => new module.OntologyHost());
let queue: Promise<void> = Promise.resolve();

scope.onmessage = (event: MessageEvent<OntologyCall>): void => {
  const { id, request } = event.data;
  queue = queue.then(async () => {
    try {
      const value = await (await host).handle(
        request,
        (done, total) => scope.postMessage({ id, kind: "progress", done, total }),
      );
      scope.postMessage({ id, kind: "ok", value });
    } catch (error) {
      scope.postMessage({ id, kind: "error", error: errorToWire(error) });
    }
  });
};
