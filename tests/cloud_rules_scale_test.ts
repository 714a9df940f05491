/**
 * The rule set scales to estates of hundreds of thousands of findings: the
 * findings are appended one by one, never spread as call arguments (which
 * overflows the stack past about 100,000).
 */

import assert from "node:assert/strict";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { addRuleFindings, evaluateRulesInto } from "../src/cloud/rules/rule_evaluate.ts";

const BUCKETS = 300_000;

function unencryptedBuckets(count: number): ReturnType<typeof emptyRecords> {
  const records = emptyRecords();
  for (let i = 0; i < count; i++) {
    records.assets.push({
      id: `bucket-${i}`,
      arn: `arn:aws:s3:::bucket-${i}`,
      name: `bucket-${i}`,
      asset_type: "S3_BUCKET",
      provider: "AWS",
      region: "us-east-1",
      account_id: "111122223333",
      tags: {},
      metadata: { encrypted: false },
      collected_at: "2026-01-01T00:00:00Z",
      is_internet_exposed: false,
    });
  }
  return records;
}

Deno.test("addRuleFindings() appends 300,000 findings without overflowing the stack", () => {
  const records = unencryptedBuckets(BUCKETS);
  const added = addRuleFindings(records);
  const unencrypted = records.findings.filter((f) =>
    f.source_finding_id === "f-bucket-unencrypted"
  );
  assert.equal(unencrypted.length, BUCKETS);
  assert.equal(added.findings, records.findings.length);
  assert.equal(unencrypted[BUCKETS - 1]!.resource_id, `bucket-${BUCKETS - 1}`);
});

Deno.test("evaluateRulesInto() appends 300,000 findings without overflowing the stack", () => {
  const records = unencryptedBuckets(BUCKETS);
  const outcome = evaluateRulesInto(records);
  assert.equal(records.findings.length, outcome.findings.length);
  assert.ok(records.findings.length >= BUCKETS);
});
