/**
 * The domain side of ingesting: report arguments checked, records merged by
 * id, rules added once, JSON Lines told from one document, and the dataset
 * mutations bumping the version only on change.
 */

import assert from "node:assert/strict";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import { isJsonLines } from "../src/cloud/importers/detect.ts";
import { mergeRecords, parseReports } from "../src/cloud/findings/ingest_reports.ts";
import {
  datasetReachabilityFindings,
  normaliseDatasetFindings,
} from "../src/cloud/findings/findings_mutations.ts";
import { InvalidArgumentError } from "../src/cloud/model/errors.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { addRuleFindings } from "../src/cloud/rules/rule_evaluate.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";

Deno.test("parseReports() checks tools and path counts", () => {
  assert.deepEqual(parseReports({ Prowler: ["/a.json"], trivy: ["/b.json", "/c.json"] }), [
    { tool: "Prowler", kind: "prowler", path: "/a.json" },
    { tool: "trivy", kind: "trivy", path: "/b.json" },
    { tool: "trivy", kind: "trivy", path: "/c.json" },
  ]);
  assert.throws(() => parseReports({ nessus: ["/a"] }), InvalidArgumentError);
  assert.throws(() => parseReports({}), /1 to 100 report paths/);
  assert.throws(() => parseReports([]), /object of report paths per tool/);
  assert.throws(() => parseReports({ prowler: "/a" }), /must be a list of paths/);
  assert.throws(
    () => parseReports({ prowler: Array.from({ length: 101 }, (_, i) => `/r${i}`) }),
    /got 101/,
  );
});

Deno.test("mergeRecords() adds by id and counts duplicate findings", () => {
  const target = sampleRecords();
  const incoming = emptyRecords();
  incoming.findings.push(structuredClone(target.findings[0]!), {
    ...structuredClone(target.findings[0]!),
    id: "new-one",
  });
  incoming.providers.push("AWS", "OCI");
  assert.deepEqual(mergeRecords(target, incoming), { added: 1, duplicates: 1 });
  assert.equal(target.findings.length, 13);
  assert.equal(target.findings[12]!.id, "new-one");
  assert.deepEqual(target.providers, [...sampleRecords().providers, "OCI"]);
});

Deno.test("addRuleFindings() adds each rule finding once", () => {
  const records = sampleRecords();
  assert.deepEqual(addRuleFindings(records), { findings: 3, compliance: 11 });
  assert.deepEqual(addRuleFindings(records), { findings: 0, compliance: 0 });
  assert.equal(records.findings.length, 15);
});

Deno.test("isJsonLines() tells JSON Lines from one document", () => {
  assert.equal(isJsonLines('{"a":1}\n{"a":2}\n'), true);
  assert.equal(isJsonLines('{"a":1}\n'), false);
  assert.equal(isJsonLines('{\n  "a": 1\n}\n'), false);
  assert.equal(isJsonLines('[{"a":1}]\n[{"a":2}]'), false);
  assert.equal(isJsonLines('{"a":1\n{"a":2}'), false);
});

Deno.test("normaliseDatasetFindings() and datasetReachabilityFindings() bump only on change", async () => {
  const workspace = new Workspace();
  workspace.add("s", sampleRecords());
  const events: string[] = [];
  workspace.onChange((e) => events.push(e.type));
  const first = normaliseDatasetFindings(workspace, "s");
  assert.deepEqual([first.version, first.changed, first.before, first.after], [1, true, 12, 12]);
  assert.equal(events.length, 3);
  const second = normaliseDatasetFindings(workspace);
  assert.deepEqual([second.version, second.changed], [1, false]);
  assert.equal(events.length, 3);
  const look = await datasetReachabilityFindings(workspace, { limit: 5 });
  assert.deepEqual([look.version, look.added, look.findings.length], [1, 0, 1]);
  const add = await datasetReachabilityFindings(workspace, { add: true });
  assert.deepEqual([add.version, add.added], [2, 1]);
  assert.equal(workspace.dataset("s").records.findings.at(-1)!.id, look.findings[0]!.id);
  const none = await datasetReachabilityFindings(workspace, { add: true, limit: 1 });
  assert.deepEqual([none.version, none.added], [2, 0]);
});
