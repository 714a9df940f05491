/**
 * The transport floor of a paged measure: the pages a real run returned,
 * stored and answered one per call, in order, by a minimal SDK server
 * (`peers/page_server.ts`) under the start task's V8 flag, to the SDK
 * client over stdio. Replaying as many calls as the run had pages shows
 * what the protocol and the client cost for the same bytes, before any work
 * of ours.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const PEER = new URL("./peers/page_server.ts", import.meta.url).pathname;

/** A running page server and its client. */
export interface PageFloor extends AsyncDisposable {
  /** Milliseconds to fetch `count` pages, one call each. */
  replay(count: number): Promise<number>;
}

/** Starts a page server answering `pages` (raw tool results), stored in `file`. */
export async function startPageFloor(
  pages: readonly Record<string, unknown>[],
  file: string,
): Promise<PageFloor> {
  await Deno.writeTextFile(file, JSON.stringify(pages));
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--no-prompt",
      "--v8-flags=--max-semi-space-size=2",
      `--allow-read=${file}`,
      PEER,
      file,
    ],
    stderr: "pipe",
  });
  const client = new Client({ name: "floor", version: "0.0.0" });
  await client.connect(transport);
  return {
    replay: async (count: number): Promise<number> => {
      const began = performance.now();
      for (let i = 0; i < count; i++) await client.callTool({ name: "page", arguments: {} });
      return performance.now() - began;
    },
    [Symbol.asyncDispose]: async (): Promise<void> => {
      await client.close();
    },
  };
}
