/**
 * Every procedure of the open target's current document, through
 * `list_procedures` pages of 500, as a client walks them.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { type Loose, ok } from "./in_memory.ts";

/** Every listed procedure: address → name, in list order; fails on an address listed twice. */
export async function listedProcedures(client: Client): Promise<Map<string, string>> {
  const procedures = new Map<string, string>();
  let offset: number | null = 0;
  while (offset !== null) {
    const page: Loose = await ok(client, "list_procedures", { offset, limit: 500 });
    for (const item of page.result.items) {
      assert.ok(!procedures.has(item.address), `${item.address} listed twice`);
      procedures.set(item.address, item.value);
    }
    offset = page.result.next_offset;
  }
  return procedures;
}
