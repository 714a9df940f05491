/**
 * The asset names of the loaded datasets, as identifiers a pseudonymising
 * policy must treat like ARNs: `web-1` or `orders-db` name a real resource
 * but no content detector can tell. Asset ids count too (they are often the
 * name, or a provider id such as `i-0abc…` whose pseudonym keeps its
 * prefix). ARNs and Azure resource paths are left to the detectors, which
 * keep their format, and so are values shorter than three characters.
 *
 * @module
 */

import type { Workspace } from "./workspace.ts";

/** Shortest name treated as an identifier. */
const MIN_NAME_LENGTH = 3;

/** The entity of `text` (`resource_name`) when it is an asset name of a loaded dataset. */
export function knownAssetName(workspace: Workspace, text: string): string | undefined {
  if (text.length < MIN_NAME_LENGTH) return undefined;
  for (const name of workspace.names()) {
    const dataset = workspace.find(name);
    if (!dataset) continue;
    const names = dataset.derived("known_asset_names", () => {
      const set = new Set<string>();
      for (const asset of dataset.records.assets) {
        for (const value of [asset.name, asset.id]) {
          if (
            typeof value === "string" && value.length >= MIN_NAME_LENGTH &&
            !value.startsWith("arn:") && !value.startsWith("/")
          ) set.add(value);
        }
      }
      return set;
    });
    if (names.has(text)) return "resource_name";
  }
  return undefined;
}
