/**
 * Cost of the workspace's hot paths on generated estates, each beside the
 * same question answered by a straight loop over the arrays: resolving a
 * reference through the index (after the one-off build), the asset
 * candidates of a completion (cached per version), building the index, and
 * loading a generic JSON file.
 *
 * Run with `deno bench --no-prompt --allow-read --allow-write tests/cloud_workspace_bench.ts`.
 */

import { refCandidates } from "../src/cloud/completers.ts";
import { loadInput } from "../src/cloud/importers/detect.ts";
import type { Asset } from "../src/cloud/model/records.ts";
import { buildAssetIndex, resolveAsset } from "../src/cloud/model/references.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";

function straightResolve(assets: readonly Asset[], ref: string): Asset | undefined {
  const byName = assets.filter((a) => a.name === ref);
  return assets.find((a) => a.id === ref) ?? assets.find((a) => a.arn === ref) ??
    (byName.length === 1 ? byName[0] : undefined);
}

const dir = await Deno.makeTempDir({ prefix: "casefile-cloud-bench-" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

for (const n of [1_000, 10_000, 100_000]) {
  const workspace = new Workspace();
  workspace.add("bench", generateEstate(n).records);
  const view = workspace.dataset("bench");
  const target = view.records.assets[Math.floor(n * 0.73)]!.name;
  resolveAsset(view, target);
  refCandidates(view);

  Deno.bench(
    `resolve a name, index (${n} assets)`,
    { group: `resolve-${n}`, baseline: true },
    () => {
      resolveAsset(view, target);
    },
  );
  Deno.bench(`resolve a name, straight loop (${n} assets)`, { group: `resolve-${n}` }, () => {
    straightResolve(view.records.assets, target);
  });
  Deno.bench(`asset candidates, cached (${n} assets)`, () => {
    refCandidates(view);
  });
  Deno.bench(`build the asset index (${n} assets)`, { n: n >= 100_000 ? 5 : undefined }, () => {
    buildAssetIndex(view.records);
  });
  if (n <= 10_000) {
    const path = `${dir}/estate-${n}.json`;
    Deno.writeTextFileSync(path, JSON.stringify(view.records));
    Deno.bench(
      `load generic JSON (${n} assets, ${view.records.edges.length} edges)`,
      { n: 5 },
      async () => {
        await loadInput(path, { fence: (p) => Deno.realPath(p) });
      },
    );
  }
}
