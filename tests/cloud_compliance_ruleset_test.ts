import assert from "node:assert/strict";
import { RULESET_FRAMEWORKS } from "../src/cloud/compliance/frameworks.ts";
import { requireFrameworks } from "../src/cloud/compliance/rollup.ts";
import {
  matchRulesetFrameworks,
  RULESET_CONTROLS_NOTE,
  rulesetControls,
} from "../src/cloud/compliance/ruleset_controls.ts";
import { UnknownFrameworkError } from "../src/cloud/model/errors.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";

Deno.test("matchRulesetFrameworks() prefers the exact name, else every name containing it", () => {
  assert.deepEqual(matchRulesetFrameworks("pci-dss"), ["PCI-DSS"]);
  assert.deepEqual(matchRulesetFrameworks("PCI"), ["PCI-AWS", "PCI-AZURE", "PCI-DSS", "PCI-GCP"]);
  assert.deepEqual(matchRulesetFrameworks("soc2"), ["SOC2"]);
  assert.equal(matchRulesetFrameworks("-gcp").length, 6);
  assert.deepEqual(matchRulesetFrameworks("  "), []);
  assert.deepEqual(matchRulesetFrameworks("FedRAMP"), []);
});

Deno.test("rulesetControls() names frameworks and providers but lists no controls", () => {
  const answer = rulesetControls("mitre");
  assert.deepEqual(answer.frameworks, [
    { framework: "MITRE-ATTACK-AWS", providers: ["AWS"] },
    { framework: "MITRE-ATTACK-AZURE", providers: ["AZURE"] },
    { framework: "MITRE-ATTACK-GCP", providers: ["GCP"] },
  ]);
  assert.equal(answer.controls_available, false);
  assert.equal(answer.note, RULESET_CONTROLS_NOTE);
  assert.throws(
    () => rulesetControls("FedRAMP"),
    (error: unknown) =>
      error instanceof UnknownFrameworkError &&
      (error.data as { valid: string[] }).valid.length === RULESET_FRAMEWORKS.length,
  );
});

Deno.test("requireFrameworks() matches dataset frameworks or lists them on a miss", () => {
  const workspace = demoWorkspace();
  const sample = workspace.dataset("sample");
  assert.deepEqual(requireFrameworks(sample, "cis"), ["CIS-AWS", "CIS-Azure", "CIS-GCP"]);
  assert.deepEqual(requireFrameworks(sample, "CIS-azure"), ["CIS-Azure"]);
  assert.throws(
    () => requireFrameworks(sample, "HIPAA"),
    (error: unknown) =>
      error instanceof UnknownFrameworkError &&
      (error.data as { valid: string[] }).valid.join() ===
        "CIS-AWS,CIS-Azure,CIS-GCP,NIST-800-53,PCI-DSS",
  );
});
