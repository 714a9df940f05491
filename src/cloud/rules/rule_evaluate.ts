/**
 * Evaluates the rule table over a dataset's records: one finding per failing
 * (rule, asset), with id `<rule id>:<asset id>`, and one CIS compliance result
 * per control our rules evaluate (FAIL with the findings' ids when a mapped
 * rule failed, PASS when mapped rules had assets to look at and none failed).
 *
 * @module
 */

import type { ComplianceResult, DatasetRecords, Edge, Finding } from "../model/records.ts";
import { cisControlsOf, cisProvider } from "./cis_mapping.ts";
import type { RuleContext, RuleDefinition } from "./rule_table.ts";
import { RULES } from "./rule_table.ts";
import { pushTo } from "../../core/multimap.ts";

/** The tool name rule findings carry. */
export const RULES_SOURCE_TOOL = "casefile-rules";

/** The findings and compliance results of the rules over some records. */
export interface RuleOutcome {
  findings: Finding[];
  compliance: ComplianceResult[];
}

/** Evaluates `rules` (default: all) over the records without changing them. */
export function evaluateRules(
  records: Readonly<DatasetRecords>,
  rules: readonly RuleDefinition[] = RULES,
): RuleOutcome {
  const incoming = new Map<string, Edge[]>();
  for (const e of records.edges) {
    pushTo(incoming, e.target_id, e);
  }
  const ctx: RuleContext = { incoming: (id) => incoming.get(id) ?? [] };
  const findings: Finding[] = [];
  const controlFindings = new Map<
    string,
    { framework: string; control: string; ids: string[]; rules: Set<string>; evaluated: boolean }
  >();
  for (const rule of rules) {
    const types = new Set<string>(rule.asset_types);
    const providers = new Set<string>(rule.providers);
    let evaluated = false;
    const failing: string[] = [];
    for (const asset of records.assets) {
      if (!types.has(asset.asset_type) || !providers.has(asset.provider)) continue;
      if (!rule.applies(asset, ctx)) continue;
      evaluated = true;
      const evidence = rule.check(asset, ctx);
      if (evidence === null) continue;
      const controls = cisControlsOf(rule.id).filter((c) =>
        cisProvider(c.framework) === asset.provider
      );
      const frameworks = [...new Set([...rule.compliance, ...controls.map((c) => c.framework)])];
      const id = `${rule.id}:${asset.id}`;
      findings.push({
        id,
        resource_id: asset.id,
        resource_arn: asset.arn,
        severity: rule.severity,
        title: rule.title,
        description: rule.description,
        evidence,
        remediation: rule.remediation,
        source_tool: RULES_SOURCE_TOOL,
        source_finding_id: rule.id,
        compliance_frameworks: frameworks,
        cvss_score: null,
        detected_at: asset.collected_at,
        is_suppressed: false,
      });
      failing.push(id);
      for (const c of controls) {
        if (rule.failsControl && !rule.failsControl(c.framework, c.control, asset, ctx)) continue;
        const key = `${c.framework} ${c.control}`;
        const entry = controlFindings.get(key) ??
          {
            framework: c.framework,
            control: c.control,
            ids: [],
            rules: new Set(),
            evaluated: true,
          };
        entry.ids.push(id);
        entry.rules.add(rule.id);
        controlFindings.set(key, entry);
      }
    }
    if (!evaluated) continue;
    const present = new Set(records.assets.map((a) => a.provider));
    for (const c of cisControlsOf(rule.id)) {
      if (!present.has(cisProvider(c.framework))) continue;
      const key = `${c.framework} ${c.control}`;
      const entry = controlFindings.get(key) ??
        { framework: c.framework, control: c.control, ids: [], rules: new Set(), evaluated: true };
      entry.rules.add(rule.id);
      controlFindings.set(key, entry);
    }
    void failing;
  }
  const compliance: ComplianceResult[] = [...controlFindings.values()].map((c) => ({
    id: `${c.framework}:${c.control}`,
    framework: c.framework,
    control_id: c.control,
    control_title: `CIS 3.0 ${c.control} (evaluated by ${[...c.rules].sort().join(", ")})`,
    status: c.ids.length > 0 ? "FAIL" : "PASS",
    finding_ids: c.ids,
    resource_arn: null,
  }));
  compliance.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
  return { findings, compliance };
}

/** Evaluates every rule and appends the findings and compliance results to the records. */
export function evaluateRulesInto(records: DatasetRecords): RuleOutcome {
  const outcome = evaluateRules(records);
  appendAll(records.findings, outcome.findings);
  appendAll(records.compliance, outcome.compliance);
  return outcome;
}

/**
 * Evaluates every rule and appends the findings and compliance results whose
 * ids the records do not hold yet, so running it after an importer that
 * already ran the rules adds nothing twice. Returns how many were added.
 */
export function addRuleFindings(records: DatasetRecords): { findings: number; compliance: number } {
  const outcome = evaluateRules(records);
  const findingIds = new Set(records.findings.map((f) => f.id));
  const complianceIds = new Set(records.compliance.map((c) => c.id));
  const findings = outcome.findings.filter((f) => !findingIds.has(f.id));
  const compliance = outcome.compliance.filter((c) => !complianceIds.has(c.id));
  appendAll(records.findings, findings);
  appendAll(records.compliance, compliance);
  return { findings: findings.length, compliance: compliance.length };
}

/** Appends one by one: spreading a large list as arguments overflows the stack. */
function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
