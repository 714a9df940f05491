/**
 * `compare_functions` given REA's lists of dossier pages compares the
 * callees of every page, not only the first.
 */

import assert from "node:assert/strict";
import { type Loose, withClient } from "./helpers/in_memory.ts";

const LIBZ = "/usr/lib/x86_64-linux-gnu/libz.so.1";
const HAVE_LIBZ = await Deno.stat(LIBZ).then(() => true, () => false);

Deno.test({
  name: "compare_functions merges the callees of every page of each side",
  ignore: !HAVE_LIBZ,
  fn: async () => {
    await withClient({ roots: ["/usr/lib"] }, async (client) => {
      await client.callTool({ name: "open_binary", arguments: { path: LIBZ } });
      const page = async (offset: number): Promise<Loose> => {
        const answer = await client.callTool({
          name: "analyze_function",
          arguments: { procedure: "deflate", limit: 2, collection_offset: offset },
        }) as Loose;
        assert.ok(!answer.isError, JSON.stringify(answer).slice(0, 300));
        return answer.structuredContent;
      };
      const pages = [await page(0), await page(2), await page(4)];
      assert.equal(pages[0].result.callees.truncated, true, "deflate has more than two callees");
      const callees = pages.flatMap((p) => p.result.callees.items);
      const unnamed = callees.filter((c: Loose) => !c.name).length;
      const named = callees.filter((c: Loose) => c.name).map((c: Loose) => c.name);
      const compare = async (left: Loose[], right: Loose[]): Promise<string> => {
        const answer = await client.callTool({
          name: "compare_functions",
          arguments: {
            left_evidence_ids: left.map((p) => p.evidence_id),
            right_evidence_ids: right.map((p) => p.evidence_id),
          },
        }) as Loose;
        assert.ok(!answer.isError, JSON.stringify(answer).slice(0, 400));
        return JSON.stringify(answer.structuredContent);
      };
      const all = await compare(pages, pages);
      assert.match(all, new RegExp(`"unnamed_left":${unnamed},"unnamed_right":${unnamed}`));
      const againstFirst = await compare(pages, [pages[0]]);
      const firstNames = new Set(pages[0].result.callees.items.map((c: Loose) => c.name));
      for (const name of named.filter((n: string) => !firstNames.has(n))) {
        assert.ok(againstFirst.includes(`"${name}"`), `${name} compared`);
      }
      const firstUnnamed = pages[0].result.callees.items.filter((c: Loose) => !c.name).length;
      assert.match(
        againstFirst,
        new RegExp(`"unnamed_left":${unnamed},"unnamed_right":${firstUnnamed}`),
      );
      assert.notEqual(unnamed, firstUnnamed, "the later pages hold callees the first does not");
    });
  },
});
