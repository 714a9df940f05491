/**
 * Builds the ontology of one dataset into an oxigraph store: the TBox, then
 * the ABox in bounded batches, yielding to the event loop between batches
 * and reporting progress.
 *
 * @module
 */

import { AboxWriter, type OntologyInput } from "./abox.ts";
import { oxigraphReady, Store } from "./oxigraph.ts";
import { asQuad, type TripleTerm } from "./terms.ts";
import { tboxQuads } from "./tbox.ts";

/** Options of {@link buildOntology}. */
export interface BuildOntologyOptions {
  /**
   * Called with (done, total) units of work: once with 0 before anything is
   * added, after each batch, and with total == done at the end.
   * @default undefined
   */
  onProgress?: (done: number, total: number) => void;
  /** ABox units (an asset, an edge or a finding) per batch. @default 1000 */
  batchSize?: number;
  /** Stops the build between batches (the partial store is dropped). @default undefined */
  signal?: AbortSignal;
}

/** A built ontology. */
export interface BuiltOntology {
  /** The store holding every triple (default graph). */
  store: Store;
  /** Number of triples. */
  triples: number;
  /** Wall time of the build, in milliseconds. */
  buildMs: number;
}

/** Lets other tasks run (timers, messages) before the next batch. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Builds the ontology of `input` into a new store.
 *
 * @example
 * ```ts
 * import { buildOntology } from "./build.ts";
 * const { triples } = await buildOntology(
 *   { assets: [], edges: [], findings: [], findingAssetIds: [], compliance: [] },
 *   { onProgress: (done, total) => console.error(`${done}/${total}`) },
 * );
 * ```
 */
export async function buildOntology(
  input: OntologyInput,
  options: BuildOntologyOptions = {},
): Promise<BuiltOntology> {
  await oxigraphReady();
  const started = performance.now();
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 1000));
  const writer = new AboxWriter(input);
  const total = writer.units + 1;
  const store = new Store();
  options.onProgress?.(0, total);
  for (const t of tboxQuads()) store.add(asQuad(t));
  let done = 1;
  const batch: TripleTerm[] = [];
  while (done < total) {
    options.signal?.throwIfAborted();
    const end = Math.min(total, done + batchSize);
    batch.length = 0;
    for (let unit = done - 1; unit < end - 1; unit++) writer.unit(unit, batch);
    for (const t of batch) store.add(asQuad(t));
    done = end;
    options.onProgress?.(done, total);
    if (done < total) await yieldToEventLoop();
  }
  if (total === 1) options.onProgress?.(1, 1);
  return { store, triples: store.size, buildMs: performance.now() - started };
}
