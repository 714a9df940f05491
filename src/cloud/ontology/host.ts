/**
 * The holder of one built ontology and the requests it answers. It runs
 * inside the ontology worker (see `worker.ts`), or in-process when workers
 * are not available; the engine on the main thread talks to it with the
 * messages defined here.
 *
 * @module
 */

import type { OntologyInput } from "./abox.ts";
import { buildOntology } from "./build.ts";
import { OntologyArgumentError, type WireError } from "./errors.ts";
import { dumpOntology, type OntologyDump, type OntologyFormat } from "./formats.ts";
import {
  type Neighbourhood,
  type NeighbourhoodOptions,
  ontologyNeighbourhood,
} from "./neighbourhood.ts";
import type { Store } from "./oxigraph.ts";
import { RagChunkIndex, type RagChunkOptions, type RagChunkPage } from "./rag_chunks.ts";
import {
  type RelationGroupListing,
  relationGroups,
  type RelationGroupsOptions,
  type RelationGroupsOverview,
} from "./relation_groups.ts";
import type { PreparedQuery } from "./sparql_guard.ts";
import { runSparql, type SparqlResult } from "./sparql_run.ts";
import { type OntologyStats, ontologyStats } from "./stats.ts";

/** Facts about a finished build. */
export interface BuildReport {
  /** The key (dataset instance and version) the store was built for. */
  key: string;
  /** Triples in the store. */
  triples: number;
  /** Build wall time, in milliseconds. */
  build_ms: number;
}

/** A request to the host. */
export type OntologyRequest =
  | { op: "build"; key: string; input: OntologyInput; batchSize?: number }
  | { op: "query"; prepared: PreparedQuery; compactUris: boolean }
  | { op: "stats" }
  | { op: "neighbourhood"; ref: string; options: NeighbourhoodOptions }
  | { op: "relation_groups"; options: RelationGroupsOptions }
  | { op: "dump"; format: OntologyFormat }
  | { op: "rag_chunks"; options: RagChunkOptions };

/** What each request answers. */
export interface OntologyResponses {
  /** A build. */
  build: BuildReport;
  /** A query. */
  query: SparqlResult;
  /** Counts. */
  stats: OntologyStats;
  /** A neighbourhood. */
  neighbourhood: Neighbourhood;
  /** The group overview or one group's triples. */
  relation_groups: RelationGroupsOverview | RelationGroupListing;
  /** A serialisation. */
  dump: OntologyDump;
  /** A page of chunks. */
  rag_chunks: RagChunkPage;
}

/** A message from the engine to the worker. */
export interface OntologyCall {
  /** Matches the reply to the call. */
  id: number;
  /** The request. */
  request: OntologyRequest;
}

/** A message from the worker to the engine. */
export type OntologyReply =
  | { id: number; kind: "progress"; done: number; total: number }
  | { id: number; kind: "ok"; value: unknown }
  | { id: number; kind: "error"; error: WireError };

/** Holds the store of one dataset version and answers requests about it. */
export class OntologyHost {
  #input: OntologyInput | null = null;
  #store: Store | null = null;
  #stats: OntologyStats | null = null;
  #chunks: RagChunkIndex | null = null;

  #built(): Store {
    if (this.#store === null) {
      throw new OntologyArgumentError("No ontology has been built yet: build it first.");
    }
    return this.#store;
  }

  /** Answers one request; `onProgress` receives build progress. */
  async handle(
    request: OntologyRequest,
    onProgress?: (done: number, total: number) => void,
  ): Promise<OntologyResponses[OntologyRequest["op"]]> {
    switch (request.op) {
      case "build": {
        // Built aside and swapped in on success: a failed build keeps the old store.
        const built = await buildOntology(request.input, {
          ...(onProgress ? { onProgress } : {}),
          ...(request.batchSize ? { batchSize: request.batchSize } : {}),
        });
        this.#store = built.store;
        this.#stats = null;
        this.#chunks = null;
        this.#input = request.input;
        return { key: request.key, triples: built.triples, build_ms: Math.round(built.buildMs) };
      }
      case "query":
        return runSparql(this.#built(), request.prepared, { compactUris: request.compactUris });
      case "stats":
        this.#stats ??= ontologyStats(this.#built());
        return this.#stats;
      case "neighbourhood":
        return ontologyNeighbourhood(this.#built(), request.ref, request.options);
      case "relation_groups":
        return relationGroups(this.#built(), request.options);
      case "dump":
        return dumpOntology(this.#built(), request.format);
      case "rag_chunks":
        this.#built();
        this.#chunks ??= new RagChunkIndex(this.#input!);
        return this.#chunks.page(request.options);
    }
  }
}
