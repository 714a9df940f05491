/**
 * Every procedure of the open target's current document, through
 * `list_procedures` pages of 500, as a client walks them; and every item of
 * any paged list tool.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { type Loose, ok } from "./in_memory.ts";

/** Every item of a paged list tool's result (`items`, `next_offset`), pages of 500. */
export async function pagedItems(
  client: Client,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<Loose[]> {
  const items: Loose[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const page: Loose = await ok(client, tool, { ...args, offset, limit: 500 });
    items.push(...page.result.items);
    offset = page.result.next_offset;
  }
  return items;
}

/** Every listed procedure: address → name, in list order; fails on an address listed twice. */
export async function listedProcedures(client: Client): Promise<Map<string, string>> {
  const procedures = new Map<string, string>();
  for (const item of await pagedItems(client, "list_procedures")) {
    assert.ok(!procedures.has(item.address), `${item.address} listed twice`);
    procedures.set(item.address, item.value);
  }
  return procedures;
}
