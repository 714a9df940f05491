/**
 * The session's retained evidence bundles, keyed by the SHA-256 of their
 * canonical JSON and read back byte for byte through
 * `rea://evidence-bundle/<digest>`.
 *
 * @module
 */

import { canonicalJson, sha256Hex } from "../../core/canonical_json.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { EvidenceBundle } from "./bundle.ts";

/** A retained bundle. */
export interface RetainedBundle {
  digest: string;
  text: string;
  bytes: number;
  records: number;
  unknowns: number;
}

/** Bundle URIs. */
export const bundleUri = (digest: string): string => `rea://evidence-bundle/${digest}`;

/** The session's retained bundles: at most 16 and 64 MiB. */
export class BundleStore {
  readonly maxBundles: number;
  readonly maxBytes: number;
  #bundles = new Map<string, RetainedBundle>();
  #bytes = 0;

  constructor(limits: { maxBundles?: number; maxBytes?: number } = {}) {
    this.maxBundles = limits.maxBundles ?? 16;
    this.maxBytes = limits.maxBytes ?? 64 * 1024 * 1024;
  }

  /** Serialises and retains; an unchanged snapshot returns the bundle already held. */
  snapshot(bundle: EvidenceBundle): { bundle: RetainedBundle; created: boolean } {
    const text = canonicalJson(bundle);
    const digest = sha256Hex(text);
    const existing = this.#bundles.get(digest);
    if (existing) return { bundle: existing, created: false };
    const bytes = new TextEncoder().encode(text).length;
    if (this.#bundles.size >= this.maxBundles) {
      throw new ToolFailure(
        "limit_exceeded",
        `The session already retains ${this.#bundles.size} bundles, the most it keeps.`,
        { action: "Call release_evidence_bundle for a bundle you no longer need." },
      );
    }
    if (this.#bytes + bytes > this.maxBytes) {
      throw new ToolFailure(
        "limit_exceeded",
        `A ${bytes}-byte bundle would take the retained bundles past ${this.maxBytes} bytes (${this.#bytes} held).`,
        { action: "Release bundles you no longer need with release_evidence_bundle." },
      );
    }
    const retained = {
      digest,
      text,
      bytes,
      records: bundle.records.length,
      unknowns: bundle.unknowns.length,
    };
    this.#bundles.set(digest, retained);
    this.#bytes += bytes;
    return { bundle: retained, created: true };
  }

  get(digest: string): RetainedBundle | undefined {
    return this.#bundles.get(digest);
  }

  list(): RetainedBundle[] {
    return [...this.#bundles.values()];
  }

  release(digest: string): boolean {
    const bundle = this.#bundles.get(digest);
    if (!bundle) return false;
    this.#bundles.delete(digest);
    this.#bytes -= bundle.bytes;
    return true;
  }

  clear(): void {
    this.#bundles.clear();
    this.#bytes = 0;
  }
}
