/**
 * The binary session of one connection: the open target, its provider
 * binding and the current document. Opens and closes are serialised; a failed
 * open leaves the previous state untouched.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import { isGranted } from "../../core/permissions.ts";
import type { RootDirectory } from "../../core/workbench.ts";
import { type ReadOptions, readTargetFile, type TargetFile } from "../paths.ts";
import { type AnalysisProvider, type Binding, selectProvider } from "../providers/provider.ts";
import {
  discoverCallTargets,
  DISCOVERY_MAX_INSTRUCTIONS,
  needsDiscovery,
} from "../analysis/discovery.ts";
import type { ProgramAnalysis } from "../analysis/program.ts";
import { ensureDemangler } from "../disasm/demangle.ts";
import type { BinaryImage } from "../formats/binary_image.ts";
import { type LoadedTarget, loadTarget, type TargetOrigin } from "./target.ts";

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
export interface OpenOptions extends ReadOptions {
  /** Progress of call-target discovery, for documents without a function table. */
  onDiscoveryProgress?: (done: number, total: number, message: string) => void | Promise<void>;
}

/** One connection's binary session. */
export class BinarySession {
  readonly roots: readonly RootDirectory[];
  readonly candidates: readonly AnalysisProvider[];
  #target: LoadedTarget | null = null;
  #binding: Binding | null = null;
  #currentDocument: string | null = null;
  #queue: Promise<unknown> = Promise.resolve();

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
   */
  open(
    source: string | (() => Promise<{ file: TargetFile; origin: TargetOrigin }>),
    providerId?: string,
    options: OpenOptions = {},
  ): Promise<OpenOutcome> {
    return this.#serialised(async () => {
      const [{ file, origin }] = await Promise.all([
        typeof source === "string"
          ? readTargetFile(source, this.roots, options).then((file) => ({
            file,
            origin: undefined,
          }))
          : source(),
        ensureDemangler(),
      ]);
      const target = loadTarget(file, origin);
      for (const image of target.documents) {
        if (!needsDiscovery(image)) continue;
        await discoverCallTargets(image, DISCOVERY_MAX_INSTRUCTIONS, {
          signal: options.signal,
          onProgress: options.onDiscoveryProgress,
        });
      }
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
      this.#target = target;
      this.#binding = binding;
      if (!same || this.#currentDocument === null) {
        this.#currentDocument = binding ? binding.provider.listDocuments(target)[0] ?? null : null;
      }
      return {
        action: previous === null ? "opened" : same ? "reopened" : "switched",
        target,
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

  /** The analysis of a document (named, or the current one) under the bound provider. */
  analysis(operation: string, document?: string): {
    target: LoadedTarget;
    provider: AnalysisProvider;
    document: string;
    image: BinaryImage;
    program: ProgramAnalysis;
  } {
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
