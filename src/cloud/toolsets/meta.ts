/**
 * The `meta` toolset of the cloud workbench: What the cloud workbench offers and what its vocabularies mean.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context.ts";

/** What the toolset is for. */
export const META_TOOLSET = {
  name: "meta",
  description: "What the cloud workbench offers and what its vocabularies mean.",
};

/** The toolset's tools, in the order they are listed. */
export function metaTools(ctx: CloudContext): ToolDefinition[] {
  void ctx;
  return [];
}
