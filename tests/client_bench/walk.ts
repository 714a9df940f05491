/**
 * Client-side operations several benches share: walking every
 * `list_procedures` page and tallying what crossed the pipe.
 *
 * @module
 */

import { type BenchServer, structured } from "./harness.ts";

/** What a full walk saw. */
export interface WalkTally {
  /** Wall time of all pages, in milliseconds. */
  ms: number;
  /** Procedures listed. */
  items: number;
  /** Pages fetched. */
  pages: number;
  /** UTF-8 bytes of every page's JSON result. */
  bytes: number;
}

/** Options of {@linkcode walkProcedures}. */
export interface WalkOptions {
  /** Receives every page's raw result, in order (for replaying the same bytes). */
  keep?: Record<string, unknown>[];
}

/** Fetches every `list_procedures` page (500 per page) of the open target. */
export async function walkProcedures(
  server: BenchServer,
  options: WalkOptions = {},
): Promise<WalkTally> {
  const tally: WalkTally = { ms: 0, items: 0, pages: 0, bytes: 0 };
  let offset: number | null = 0;
  while (offset !== null) {
    const call = await server.call("list_procedures", { offset, limit: 500 });
    const result = structured(call).result as { items: unknown[]; next_offset: number | null };
    options.keep?.push(call.result);
    tally.ms += call.ms;
    tally.items += result.items.length;
    tally.pages++;
    tally.bytes += call.bytes;
    offset = result.next_offset;
  }
  return tally;
}
