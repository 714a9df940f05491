/**
 * The `inventory` toolset of the cloud workbench: Assets: search, detail, metadata, counts, accounts, regions, tags, coverage, organisation.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context.ts";

/** What the toolset is for. */
export const INVENTORY_TOOLSET = {
  name: "inventory",
  description:
    "Assets: search, detail, metadata, counts, accounts, regions, tags, coverage, organisation.",
};

/** The toolset's tools, in the order they are listed. */
export function inventoryTools(ctx: CloudContext): ToolDefinition[] {
  void ctx;
  return [];
}
