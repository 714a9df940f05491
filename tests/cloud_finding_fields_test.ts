import assert from "node:assert/strict";
import {
  FINDING_FIELDS,
  parseFindingFields,
  projectFinding,
} from "../src/cloud/findings/fields.ts";
import { findingBrief } from "../src/cloud/model/briefs.ts";
import { InvalidEnumError } from "../src/cloud/model/errors.ts";
import { finding, makeView } from "./helpers/cloud_estate.ts";

Deno.test("parseFindingFields() puts id first, keeps order, drops repeats, reads any case", () => {
  assert.deepEqual(parseFindingFields([]), [...FINDING_FIELDS]);
  assert.deepEqual(parseFindingFields(["Severity", "title", "severity", "ID"]), [
    "id",
    "severity",
    "title",
  ]);
  assert.throws(
    () => parseFindingFields(["titel"]),
    (error: unknown) =>
      error instanceof InvalidEnumError &&
      (error.data as { close_matches: string[] }).close_matches[0] === "title",
  );
});

Deno.test("projectFinding() keeps only the asked fields, nulls included", () => {
  const view = makeView({
    assets: [],
    edges: [],
    findings: [finding("f-1", "nowhere", "HIGH")],
  });
  const brief = findingBrief(view, view.records.findings[0]!);
  assert.equal(FINDING_FIELDS.length, Object.keys(brief).length);
  assert.deepEqual(projectFinding(brief, ["id", "asset_id", "cvss_score", "severity"]), {
    id: "f-1",
    asset_id: null,
    cvss_score: null,
    severity: "HIGH",
  });
});
