/**
 * The binary session of one connection: the open target, its provider
 * binding and the current document. Opens and closes are serialised; a failed
 * open leaves the previous state untouched.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import { collectGarbageSoon } from "../../core/memory.ts";
import { isGranted } from "../../core/permissions.ts";
import type { RootDirectory } from "../../core/workbench.ts";
import { type ReadOptions, readTargetFile, type TargetFile } from "../paths.ts";
import { type AnalysisProvider, type Binding, selectProvider } from "../providers/provider.ts";
import {
  discoverCallTargets,
  discoverStartupCallees,
  DISCOVERY_MAX_INSTRUCTIONS,
  hasStartupFunctions,
  needsDiscovery,
} from "../analysis/discovery.ts";
import type { AnalysisControl, ProgramAnalysis } from "../analysis/program.ts";
import { ensureDemangler } from "../disasm/demangle.ts";
import type { BinaryImage } from "../formats/binary_image.ts";
import { isDeferred } from "../formats/deferred_image.ts";
import {
  completeDocument,
  identifyingRanges,
  type LoadedTarget,
  loadTarget,
  readUnread,
  type TargetOrigin,
} from "./target.ts";

/** Environment variable naming a default provider (needs `--allow-env`). */
export const PROVIDER_ENV = "CASEFILE_ANALYSIS_PROVIDER";

/** What `open` did. */
export interface OpenOutcome {
  /** `opened` a first target, `switched` from another, `reopened` the same one. */
  action: "opened" | "switched" | "reopened";
  target: LoadedTarget;
  binding: Binding | null;
}

/** Options of {@linkcode BinarySession.open}. */
export type OpenOptions = ReadOptions;

/** The document a static-analysis call works on, with its provider and analysis. */
export interface AnalysisScope {
  target: LoadedTarget;
  provider: AnalysisProvider;
  document: string;
  image: BinaryImage;
  program: ProgramAnalysis;
}

/** One connection's binary session. */
export class BinarySession {
  readonly roots: readonly RootDirectory[];
  readonly candidates: readonly AnalysisProvider[];
  #target: LoadedTarget | null = null;
  #binding: Binding | null = null;
  #currentDocument: string | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  /** Documents read in full and, when they needed it, swept for call targets. */
  #ready = new WeakSet<BinaryImage>();
  /** Readiness work in flight, shared by the calls that wait for it. */
  #readying = new WeakMap<BinaryImage, Promise<void>>();

  constructor(roots: readonly RootDirectory[], candidates: readonly AnalysisProvider[]) {
    this.roots = roots;
    this.candidates = [...candidates].sort((a, b) =>
      a.identity.id < b.identity.id ? -1 : a.identity.id > b.identity.id ? 1 : 0
    );
  }

  /** The open target, or null. */
  get target(): LoadedTarget | null {
    return this.#target;
  }

  /** The provider binding, or null (no target, or opened unbound). */
  get binding(): Binding | null {
    return this.#binding;
  }

  /** The current document, or null. */
  get currentDocument(): string | null {
    return this.#currentDocument;
  }

  /**
   * Opens (or reopens, or switches to) a target: a file under a root by its
   * path, or bytes a loader produces (an artifact member) with their origin.
   * Only what identifies the target is read: its documents are read in full
   * and swept for call targets on first need ({@linkcode prepared}).
   */
  open(
    source: string | (() => Promise<{ file: TargetFile; origin: TargetOrigin }>),
    providerId?: string,
    options: OpenOptions = {},
  ): Promise<OpenOutcome> {
    return this.#serialised(async () => {
      const { file, origin } = typeof source === "string"
        ? {
          file: await readTargetFile(source, this.roots, { ...options, identifyingRanges }),
          origin: undefined,
        }
        : await source();
      const target = loadTarget(file, origin);
      const previous = this.#target;
      const same = previous !== null && previous.realPath === target.realPath &&
        previous.sha256 === target.sha256;
      const { requested, source: selection } = this.#selector(providerId);
      let binding: Binding | null;
      if (same && providerId === undefined) {
        binding = this.#binding;
      } else {
        binding = selectProvider(this.candidates, target, requested, selection);
      }
      // The same bytes keep what was read and analysed of them.
      const opened = same
        ? {
          ...target,
          documents: previous.documents,
          programs: previous.programs,
          unread: previous.unread,
        }
        : target;
      this.#target = opened;
      this.#binding = binding;
      if (!same || this.#currentDocument === null) {
        this.#currentDocument = binding ? binding.provider.listDocuments(opened)[0] ?? null : null;
      }
      return {
        action: previous === null ? "opened" : same ? "reopened" : "switched",
        target: opened,
        binding,
      };
    });
  }

  /** Resolves once every open or close already requested has finished. */
  idle(): Promise<void> {
    return this.#queue.then(() => {}, () => {});
  }

  /** Closes the target; returns whether one was open. */
  close(): Promise<boolean> {
    return this.#serialised(() => {
      const wasOpen = this.#target !== null;
      this.#target = null;
      this.#binding = null;
      this.#currentDocument = null;
      return Promise.resolve(wasOpen);
    });
  }

  /** Sets the current document; it must be one the provider lists. Returns the documents. */
  setCurrentDocument(document: string): string[] {
    const documents = this.#documents();
    this.#currentDocument = this.#listed(document, documents);
    return documents;
  }

  /** The open target, or a clear error. */
  requireTarget(): LoadedTarget {
    if (!this.#target) {
      throw new ToolFailure("target_unavailable", "No target is open.", {
        action: "Call open_binary with the absolute path of a file under an allowed root.",
      });
    }
    return this.#target;
  }

  /** The target and its bound provider, which must implement `operation`. */
  requireProvider(operation: string): { target: LoadedTarget; provider: AnalysisProvider } {
    const target = this.requireTarget();
    const provider = this.#binding?.provider;
    if (!provider) {
      throw new ToolFailure(
        "capability_unavailable",
        `${operation} needs an analysis provider, but ${target.name} opened unbound: no candidate supports it.`,
        { action: "Call binary_session to see why each candidate was rejected." },
      );
    }
    if (!provider.capabilities.includes(operation)) {
      throw new ToolFailure(
        "capability_unavailable",
        `Provider ${provider.identity.id} does not implement ${operation}.`,
      );
    }
    return { target, provider };
  }

  /**
   * The analysis of a document (named, or the current one) under the bound
   * provider, as it stands: its procedures may not be read yet. Anything that
   * reads procedures, imports, exports or code goes through
   * {@linkcode prepared} instead.
   */
  analysis(operation: string, document?: string): AnalysisScope {
    const { target, provider } = this.requireProvider(operation);
    const name = this.resolveDocument(document);
    const image = target.documents.find((d) => d.document === name) ?? target.documents[0]!;
    return {
      target,
      provider,
      document: image.document,
      image,
      program: target.programs.get(image.document)!,
    };
  }

  /**
   * Waits for pending opens and closes, resolves the document like
   * {@linkcode analysis} (failing the same way before any work), then readies
   * it once: reads what the open left unread (symbol tables, `.eh_frame`,
   * PLT, imports, exports), sweeps it for call targets when it has no
   * function table, and loads the demangler, reporting progress through
   * `control`. Later calls find it ready; concurrent ones share the work.
   */
  async prepared(
    operation: string,
    document: string | undefined,
    control: AnalysisControl = {},
  ): Promise<AnalysisScope> {
    for (;;) {
      await this.idle();
      const scope = this.analysis(operation, document);
      // Another open may have switched targets while this one waited: check again.
      if (this.#ready.has(scope.image)) return scope;
      await this.#readyOnce(scope.target, scope.image, control);
    }
  }

  /** Whether a document of the open target is read in full and swept (when it needed it). */
  isPrepared(image: BinaryImage): boolean {
    return this.#ready.has(image);
  }

  async #readyOnce(
    target: LoadedTarget,
    image: BinaryImage,
    control: AnalysisControl,
  ): Promise<void> {
    const running = this.#readying.get(image);
    if (running) {
      try {
        return await running;
      } catch (error) {
        // Cancelled by the call that started it: this call starts its own.
        if (control.signal?.aborted || !this.#cancelled(error)) throw error;
        return;
      }
    }
    const work = readyDocument(target, image, control).then(() => {
      this.#ready.add(image);
      collectGarbageSoon();
    }).finally(() => this.#readying.delete(image));
    this.#readying.set(image, work);
    return await work;
  }

  #cancelled(error: unknown): boolean {
    return error instanceof ToolFailure
      ? error.code === "cancelled"
      : error instanceof DOMException;
  }

  /** Resolves the document argument: explicit (must exist) or the current one. */
  resolveDocument(document: string | undefined): string {
    const documents = this.#documents();
    if (document === undefined || document === "") {
      return this.#currentDocument ?? documents[0] ?? this.requireTarget().name;
    }
    return this.#listed(document, documents);
  }

  #documents(): string[] {
    const { target, provider } = this.requireProvider("list_documents");
    return provider.listDocuments(target);
  }

  #listed(document: string, documents: string[]): string {
    if (!documents.includes(document)) {
      throw new ToolFailure(
        "invalid_request",
        `No document ${JSON.stringify(document)} in ${this.requireTarget().name}; documents: ${
          JSON.stringify(documents)
        }.`,
        { action: "Call list_documents and pass one of the names it returns." },
      );
    }
    return document;
  }

  #selector(providerId: string | undefined): {
    requested: string;
    source: "request" | "environment" | "default";
  } {
    if (providerId !== undefined) return { requested: providerId, source: "request" };
    if (isGranted("env", PROVIDER_ENV)) {
      const fromEnv = Deno.env.get(PROVIDER_ENV);
      if (fromEnv) return { requested: fromEnv, source: "environment" };
    }
    return { requested: "auto", source: "default" };
  }

  #serialised<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(operation, operation);
    this.#queue = next.catch(() => {});
    return next;
  }
}

/** Reads a document in full and sweeps it when it has no function table (see `prepared`). */
async function readyDocument(
  target: LoadedTarget,
  image: BinaryImage,
  control: AnalysisControl,
): Promise<void> {
  await ensureDemangler();
  if (isDeferred(image)) {
    await control.onProgress?.(
      0,
      1,
      `reading the symbol tables, function tables, imports and exports of ${image.document}`,
    );
    await readUnread(target, control.signal);
    completeDocument(target, image);
  }
  // Discovery and the tool's own work report progress above 0 on their scales.
  if (needsDiscovery(image)) await discoverCallTargets(image, DISCOVERY_MAX_INSTRUCTIONS, control);
  if (hasStartupFunctions(image)) await discoverStartupCallees(image, control);
}
