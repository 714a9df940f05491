/**
 * Resolution of the references that asset-level relations name (`vpc:<id>`,
 * `sg:<id>`, `kms:<id>`) to assets of the matching types, by internal id,
 * ARN, name or the last segment of the ARN.
 *
 * @module
 */

import type { AssetType } from "../model/enums.ts";
import type { Asset } from "../model/records.ts";

/** Asset types each reference kind may resolve to. */
export const REFERENCE_TYPES: Readonly<Record<string, readonly AssetType[]>> = {
  vpc: ["VPC", "VNET"],
  sg: ["SECURITY_GROUP", "NSG"],
  kms: ["KMS_KEY"],
};

/** Looks up `kind:key` references among a dataset's assets. */
export class AssetReferenceIndex {
  readonly #assets = new Set<string>();
  readonly #references = new Map<string, string>();

  /** Indexes the assets; the first asset claiming a key keeps it. */
  constructor(assets: readonly Asset[]) {
    for (const asset of assets) this.#assets.add(asset.id);
    for (const [kind, types] of Object.entries(REFERENCE_TYPES)) {
      const wanted = new Set<string>(types);
      for (const asset of assets) {
        if (!wanted.has(asset.asset_type)) continue;
        const keys = [asset.id, asset.arn, asset.name];
        if (asset.arn) keys.push(asset.arn.split(/[/:]/).pop() ?? null);
        for (const key of keys) {
          if (key && !this.#references.has(`${kind}:${key}`)) {
            this.#references.set(`${kind}:${key}`, asset.id);
          }
        }
      }
    }
  }

  /**
   * The asset id a subject or object of an asset relation stands for: itself
   * when it is an asset id, the resolved asset for a known reference, else
   * the reference unchanged (`tag:alice`, an unknown `vpc:…`).
   */
  resolve(ref: string): string {
    if (this.#assets.has(ref)) return ref;
    return this.#references.get(ref) ?? ref;
  }

  /** Whether an id is one of the dataset's assets. */
  isAsset(id: string): boolean {
    return this.#assets.has(id);
  }
}
