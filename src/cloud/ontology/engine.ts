/**
 * The main thread's handle on a dataset's ontology. The store lives in a Web
 * Worker: it is built there once per dataset version and then answers
 * queries, counts, neighbourhoods, dumps and chunks. SPARQL text is checked
 * on the main thread before it is sent; a query that runs past its time
 * limit is stopped by terminating the worker, so the main event loop never
 * waits on the engine. The next request starts a fresh worker and rebuilds
 * the store from the input kept here.
 *
 * Starting the worker loads `worker.ts` and the modules it imports, which
 * Deno checks like a dynamic import: it needs read access to the `src/`
 * folder when the package runs from files, or net access to the package's
 * host when it runs from a URL. With `isolation: "auto"` (the default) the
 * engine checks that permission first and falls back to running in-process
 * (`isolated` is then false and query time limits cannot interrupt a query).
 *
 * @module
 */

import { type OntologyInput, ontologyInputFromView } from "./abox.ts";
import type { DatasetView } from "../model/view.ts";
import {
  errorFromWire,
  OntologyArgumentError,
  OntologyWorkerError,
  SparqlTimeoutError,
} from "./errors.ts";
import type { OntologyDump, OntologyFormat } from "./formats.ts";
import {
  type BuildReport,
  OntologyHost,
  type OntologyReply,
  type OntologyRequest,
  type OntologyResponses,
} from "./host.ts";
import type { Neighbourhood, NeighbourhoodOptions } from "./neighbourhood.ts";
import type { RagChunkOptions, RagChunkPage } from "./rag_chunks.ts";
import type {
  RelationGroupListing,
  RelationGroupsOptions,
  RelationGroupsOverview,
} from "./relation_groups.ts";
import { guardSparql } from "./sparql_guard.ts";
import type { SparqlResult } from "./sparql_run.ts";
import type { OntologyStats } from "./stats.ts";

/** Where the store lives. */
export type OntologyIsolation = "worker" | "inline" | "auto";

/** Options of {@link OntologyEngine}. */
export interface OntologyEngineOptions {
  /**
   * `worker`: always in a worker (an error if it cannot start); `inline`: in
   * this thread; `auto`: a worker when the permission to load it is granted.
   * @default "auto"
   */
  isolation?: OntologyIsolation;
  /** Time limit of a query when the call gives none, in milliseconds. @default 120000 */
  queryTimeoutMs?: number;
  /** ABox units per build batch. @default 1000 */
  batchSize?: number;
  /** The worker module. @default new URL("./worker.ts", import.meta.url) */
  workerUrl?: URL;
}

/** What {@link OntologyEngine.ensure} reports. */
export interface EnsureReport extends BuildReport {
  /** Whether this call built the store (false when it was already built for the key). */
  built_now: boolean;
}

/** Options of {@link OntologyEngine.ensure}. */
export interface EnsureOptions {
  /** Build progress (done, total), only when a build happens. @default undefined */
  onProgress?: (done: number, total: number) => void;
}

/** Options of {@link OntologyEngine.query}. */
export interface OntologyQueryOptions {
  /** Rows (or triples) returned at most. @default 100 */
  limit?: number;
  /** Shorten IRIs with the ontology prefixes. @default true */
  compactUris?: boolean;
  /** Time limit in milliseconds. @default the engine's queryTimeoutMs */
  timeoutMs?: number;
}

/** A query result with its run time. */
export type OntologyQueryResult = SparqlResult & {
  /** Milliseconds from sending the query to its answer. */
  elapsed_ms: number;
};

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** Whether this process may load the worker module (and the modules beside it). */
function mayLoadWorker(url: URL): boolean {
  try {
    if (url.protocol === "file:") {
      return Deno.permissions.querySync({ name: "read", path: new URL("../../", url) }).state ===
        "granted";
    }
    if (url.protocol === "http:" || url.protocol === "https:") {
      return Deno.permissions.querySync({ name: "net", host: url.host }).state === "granted";
    }
    return true;
  } catch {
    return false;
  }
}

/** The flag a worker at `url` needs. */
function neededFlag(url: URL): string {
  return url.protocol === "file:"
    ? `--allow-read=${decodeURIComponent(new URL("../../", url).pathname)}`
    : `--allow-net=${url.host}`;
}

/**
 * Owns the ontology of one dataset version at a time, in a worker.
 *
 * @example
 * ```ts
 * import { OntologyEngine } from "./engine.ts";
 * const engine = new OntologyEngine();
 * try {
 *   await engine.ensure("demo:1", () => ({
 *     assets: [], edges: [], findings: [], findingAssetIds: [], compliance: [],
 *   }));
 *   const result = await engine.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }");
 * } finally {
 *   engine.close();
 * }
 * ```
 */
export class OntologyEngine {
  readonly #isolation: "worker" | "inline";
  readonly #url: URL;
  readonly #timeoutMs: number;
  readonly #batchSize: number;
  #worker: Worker | null = null;
  #host: OntologyHost | null = null;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #queue: Promise<unknown> = Promise.resolve();
  #key: string | null = null;
  #input: OntologyInput | null = null;
  #built: BuildReport | null = null;
  #closed = false;

  /** Chooses where the store will live; nothing starts until the first build. */
  constructor(options: OntologyEngineOptions = {}) {
    this.#url = options.workerUrl ?? new URL("./worker.ts", import.meta.url);
    this.#timeoutMs = options.queryTimeoutMs ?? 120_000;
    this.#batchSize = options.batchSize ?? 1000;
    const isolation = options.isolation ?? "auto";
    if (isolation === "auto") {
      this.#isolation = mayLoadWorker(this.#url) ? "worker" : "inline";
    } else {
      this.#isolation = isolation;
    }
  }

  /** Whether the store lives in a worker (so query time limits really stop queries). */
  get isolated(): boolean {
    return this.#isolation === "worker";
  }

  /** The key the current input was given with, or null before the first build. */
  get key(): string | null {
    return this.#key;
  }

  /** Runs `task` after every earlier call has settled. */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const guarded = (): Promise<T> =>
      this.#closed
        ? Promise.reject(new OntologyWorkerError("The ontology engine is closed."))
        : task();
    const run = this.#queue.then(guarded, guarded);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #spawn(): Worker {
    let worker: Worker;
    try {
      worker = new Worker(this.#url, { type: "module" });
    } catch (error) {
      throw new OntologyWorkerError(
        `Cannot start the ontology worker (${(error as Error).message}); it needs ${
          neededFlag(this.#url)
        }.`,
      );
    }
    worker.onmessage = (event: MessageEvent<OntologyReply>): void => {
      const reply = event.data;
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      if (reply.kind === "progress") {
        pending.onProgress?.(reply.done, reply.total);
        return;
      }
      this.#pending.delete(reply.id);
      if (reply.kind === "ok") pending.resolve(reply.value);
      else pending.reject(errorFromWire(reply.error));
    };
    worker.onerror = (event: ErrorEvent): void => {
      event.preventDefault();
      const permission = /Requires (read|net) access/.test(event.message)
        ? ` Start the process with ${neededFlag(this.#url)} so the worker can load.`
        : "";
      this.#kill(
        new OntologyWorkerError(`The ontology worker failed: ${event.message}.${permission}`),
      );
    };
    worker.onmessageerror = (): void => {
      this.#kill(
        new OntologyWorkerError("The ontology worker sent a message that cannot be read."),
      );
    };
    return worker;
  }

  /** Stops the worker, failing whatever it was doing with `error`; the store is gone. */
  #kill(error: Error): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#built = null;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(error);
  }

  /** Sends one request to wherever the store lives. */
  #call<K extends OntologyRequest["op"]>(
    request: Extract<OntologyRequest, { op: K }>,
    options: { timeoutMs?: number; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<OntologyResponses[K]> {
    if (this.#closed) {
      return Promise.reject(new OntologyWorkerError("The ontology engine is closed."));
    }
    if (this.#isolation === "inline") {
      this.#host ??= new OntologyHost();
      return this.#host.handle(request, options.onProgress) as Promise<OntologyResponses[K]>;
    }
    this.#worker ??= this.#spawn();
    const id = this.#nextId++;
    return new Promise<OntologyResponses[K]>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = <A>(fn: (arg: A) => void) => (arg: A): void => {
        if (timer !== undefined) clearTimeout(timer);
        fn(arg);
      };
      this.#pending.set(id, {
        resolve: settle(resolve as (value: unknown) => void),
        reject: settle(reject),
        onProgress: options.onProgress,
      });
      if (options.timeoutMs !== undefined) {
        const limit = options.timeoutMs;
        timer = setTimeout(() => {
          timer = undefined;
          this.#kill(
            new SparqlTimeoutError(
              `The query ran past its ${limit} ms time limit and was stopped; narrow it ` +
                `(more specific patterns, a LIMIT, fewer property paths) and try again.`,
              limit,
            ),
          );
        }, limit);
      }
      this.#worker!.postMessage({ id, request });
    });
  }

  /** Rebuilds the store from the kept input after the worker was stopped. */
  async #ready(): Promise<void> {
    if (this.#built !== null) return;
    if (this.#input === null || this.#key === null) {
      throw new OntologyArgumentError(
        "No ontology has been built yet: call ensure() with the dataset first.",
      );
    }
    this.#built = await this.#call({
      op: "build",
      key: this.#key,
      input: this.#input,
      batchSize: this.#batchSize,
    });
  }

  /**
   * Makes sure the store holds the ontology for `key` (build it when the key
   * changed); `makeInput` is called only when a build is needed.
   */
  ensure(
    key: string,
    makeInput: () => OntologyInput,
    options: EnsureOptions = {},
  ): Promise<EnsureReport> {
    return this.#serial(async () => {
      if (this.#key === key && this.#built?.key === key) {
        return { ...this.#built, built_now: false };
      }
      const input = this.#key === key && this.#input !== null ? this.#input : makeInput();
      const report = await this.#call({
        op: "build",
        key,
        input,
        batchSize: this.#batchSize,
      }, options.onProgress ? { onProgress: options.onProgress } : {});
      this.#key = key;
      this.#input = input;
      this.#built = report;
      return { ...report, built_now: true };
    });
  }

  /** {@link ensure} for a dataset view, keyed by its load instance and version. */
  ensureView(view: DatasetView, options: EnsureOptions = {}): Promise<EnsureReport> {
    return this.ensure(
      `${view.instanceId}:${view.version}`,
      () => ontologyInputFromView(view),
      options,
    );
  }

  /**
   * Runs a read-only SPARQL query. The text is checked here first (syntax,
   * updates, SERVICE, FROM), then run in the worker under the time limit.
   */
  query(text: string, options: OntologyQueryOptions = {}): Promise<OntologyQueryResult> {
    let prepared: ReturnType<typeof guardSparql>;
    try {
      prepared = guardSparql(text, { limit: options.limit ?? 100 });
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#serial(async () => {
      await this.#ready();
      const started = performance.now();
      const result = await this.#call(
        { op: "query", prepared, compactUris: options.compactUris ?? true },
        { timeoutMs: options.timeoutMs ?? this.#timeoutMs },
      );
      return { ...result, elapsed_ms: Math.round(performance.now() - started) };
    });
  }

  /** Counts over the ontology. */
  stats(): Promise<OntologyStats> {
    return this.#serial(async () => {
      await this.#ready();
      return await this.#call({ op: "stats" });
    });
  }

  /** Relation triples around an asset id, `cmr:` name or IRI. */
  neighbourhood(ref: string, options: NeighbourhoodOptions = {}): Promise<Neighbourhood> {
    return this.#serial(async () => {
      await this.#ready();
      return await this.#call({ op: "neighbourhood", ref, options });
    });
  }

  /** The relation group overview, or one group's triples. */
  relationGroups(
    options: RelationGroupsOptions = {},
  ): Promise<RelationGroupsOverview | RelationGroupListing> {
    return this.#serial(async () => {
      await this.#ready();
      return await this.#call({ op: "relation_groups", options });
    });
  }

  /** One serialisation of the ontology. */
  dump(format: OntologyFormat): Promise<OntologyDump> {
    return this.#serial(async () => {
      await this.#ready();
      return await this.#call({ op: "dump", format });
    });
  }

  /** A page of RAG chunks. */
  ragChunks(options: RagChunkOptions = {}): Promise<RagChunkPage> {
    return this.#serial(async () => {
      await this.#ready();
      return await this.#call({ op: "rag_chunks", options });
    });
  }

  /** Stops the worker and drops the store; later calls fail. */
  close(): void {
    this.#closed = true;
    this.#kill(new OntologyWorkerError("The ontology engine was closed."));
    this.#host = null;
    this.#input = null;
  }
}
