import assert from "node:assert/strict";
import { writeDemoFiles } from "../src/cloud/demo/files.ts";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import { datasetSummary } from "../src/cloud/workspace/summary.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

Deno.test("writeDemoFiles() output loads back as the same estate, both ways", async () => {
  await withTempDir(async (dir) => {
    const paths = await writeDemoFiles(dir);
    const workspace = new Workspace({ fence: (p) => Deno.realPath(p) });
    const inventory = await workspace.load(paths.inventory);
    const report = await workspace.load(paths.report);
    assert.deepEqual([inventory.dataset.name, inventory.dataset.kind], ["inventory", "inventory"]);
    assert.deepEqual([report.dataset.name, report.dataset.kind], ["report", "report"]);
    const expected = sampleRecords();
    for (const loaded of [inventory.dataset, report.dataset]) {
      assert.deepEqual(loaded.records.assets, expected.assets);
      // The file's findings, then the three of our rule set, which runs on every load.
      const n = expected.findings.length;
      assert.deepEqual(loaded.records.findings.slice(0, n), expected.findings);
      assert.deepEqual(loaded.records.findings.slice(n).map((f) => f.id), [
        "f-bucket-no-public-access-block:logs-bucket",
        "f-kms-rotation-disabled:kms-main",
        "f-vpc-flow-logs-disabled:vpc-prod",
      ]);
      assert.deepEqual(
        loaded.records.compliance.slice(0, expected.compliance.length),
        expected.compliance,
      );
      assert.deepEqual(loaded.records.suppression_reasons, expected.suppression_reasons);
      const s = datasetSummary(loaded);
      assert.deepEqual([s.open_findings, s.internet_exposed, s.cross_account_edges], [14, 6, 3]);
    }
    assert.deepEqual(inventory.dataset.records.edges, expected.edges);
    assert.equal(report.dataset.records.edges.length, 56);
    assert.match(String(inventory.dataset.metadata["findings_source"]), /findings\.json$/);
    assert.deepEqual(inventory.notes.unknown_asset_types, {});
  }, { prefix: "cloud-demo-files-" });
});
