/**
 * The `terraform-plan` importer: the JSON of `terraform show -json PLANFILE`.
 * Assets are the planned values (what the estate will be), with the plan
 * actions per resource from `resource_changes`; edges come from attribute
 * values when known and from the configuration's expression references when
 * the values are only known after apply. Asset ids are Terraform addresses,
 * the same as a state of the same configuration, so a plan diffs cleanly
 * against the state it changes.
 *
 * @module
 */

import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportResult } from "./importer.ts";
import { arr, isObject, jsonDocumentImporter, obj, str } from "./import_input.ts";
import type { TerraformInstance } from "./terraform_graph.ts";
import { buildTerraformRecords, configAddress } from "./terraform_graph.ts";
import { evaluateRulesInto } from "../rules/rule_evaluate.ts";

const KIND = "terraform-plan";

/** Whether parsed JSON looks like `terraform show -json` of a plan. */
export function looksLikePlan(value: unknown): boolean {
  return isObject(value) && typeof value.format_version === "string" &&
    ("planned_values" in value || "resource_changes" in value);
}

/** Collects expression references per resource address from a configuration module. */
function configurationReferences(
  module: Record<string, unknown>,
  prefix: string,
  out: Map<string, Record<string, string[]>>,
): void {
  for (const r of arr(module.resources)) {
    const res = obj(r);
    const address = str(res.address);
    if (!address) continue;
    const refs: Record<string, string[]> = {};
    for (const [attr, expr] of Object.entries(obj(res.expressions))) {
      const list = collectReferences(expr).map((ref) => qualify(prefix, ref));
      if (list.length > 0) refs[attr] = [...new Set(list)];
    }
    out.set(qualify(prefix, address), refs);
  }
  for (const [name, call] of Object.entries(obj(module.module_calls))) {
    const child = obj(obj(call).module);
    configurationReferences(child, `${prefix}module.${name}.`, out);
  }
}

function qualify(prefix: string, ref: string): string {
  return ref.startsWith("module.") || prefix === "" ? ref : prefix + ref;
}

/** Resource addresses named in an expression tree (`aws_vpc.main.id` → `aws_vpc.main`). */
function collectReferences(expr: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (!isObject(node)) return;
    for (const ref of arr(node.references)) {
      if (typeof ref !== "string" || ref.startsWith("var.") || ref.startsWith("local.")) continue;
      const parts = ref.split(".");
      const idx = parts[0] === "data" ? 3 : parts[0] === "module" ? -1 : 2;
      if (idx === -1) {
        // module.x.aws_vpc.main.id
        const m = /^(module\.[^.]+(?:\.module\.[^.]+)*\.[a-z0-9_]+\.[^.[]+)/.exec(ref);
        if (m && /\.[a-z]+_[a-z0-9_]+\./.test(ref)) out.push(m[1]!);
        continue;
      }
      if (parts.length >= idx && /_/.test(parts[parts[0] === "data" ? 1 : 0] ?? "")) {
        out.push(parts.slice(0, idx).join(".").replace(/\[[^\]]*\]$/, ""));
      }
    }
    for (const [k, v] of Object.entries(node)) if (k !== "references") walk(v);
  };
  walk(expr);
  return out;
}

/**
 * The plan's AWS provider configuration when it is the only one (no alias, no module's own):
 * with the region it sets, as a constant or through a root variable the plan gives a value.
 * Null when the plan has none or several (an alias such as `aws.west` may place the resources
 * naming it elsewhere).
 */
export function soleAwsProvider(plan: Record<string, unknown>): { region: string | null } | null {
  const configs = Object.values(obj(obj(plan.configuration).provider_config)).map(obj)
    .filter((config) => config.name === "aws");
  if (configs.length !== 1 || configs[0]!.alias !== undefined) return null;
  const expression = obj(obj(configs[0]!.expressions).region);
  const constant = str(expression.constant_value);
  if (constant) return { region: constant };
  const refs = arr(expression.references).filter((r): r is string => typeof r === "string");
  const variable = refs.length === 1 && refs[0]!.startsWith("var.") ? refs[0]!.slice(4) : null;
  const value = variable === null ? null : str(obj(obj(plan.variables)[variable]).value);
  return { region: value ?? null };
}

/** The planned instances of a plan, with actions and configuration references. */
export function planInstances(plan: Record<string, unknown>): TerraformInstance[] {
  const refs = new Map<string, Record<string, string[]>>();
  configurationReferences(obj(obj(plan.configuration).root_module), "", refs);
  const actions = new Map<string, string[]>();
  for (const c of arr(plan.resource_changes)) {
    const change = obj(c);
    const address = str(change.address);
    if (address) actions.set(address, arr(obj(change.change).actions).map(String));
  }
  const out: TerraformInstance[] = [];
  const seen = new Set<string>();
  const walk = (module: Record<string, unknown>): void => {
    for (const r of arr(module.resources)) {
      const res = obj(r);
      const type = str(res.type);
      const name = str(res.name);
      const address = str(res.address);
      if (!type || !name || !address) continue;
      const mode = res.mode === "data" ? "data" : "managed";
      const resourceAddress = address.replace(/\[[^\]]*\]$/, "");
      const module = /^(module\..+?)\.(?:data\.)?[a-z0-9_]+\.[^.]+$/.exec(resourceAddress)?.[1] ??
        "";
      seen.add(address);
      out.push({
        address,
        resourceAddress,
        module,
        mode,
        type,
        name,
        values: obj(res.values),
        dependencies: [],
        references: refs.get(configAddress(resourceAddress)) ?? {},
        actions: actions.get(address) ?? ["no-op"],
      });
    }
    for (const child of arr(module.child_modules)) walk(obj(child));
  };
  walk(obj(obj(plan.planned_values).root_module));
  return out;
}

/** The `terraform-plan` importer entry. */
export const terraformPlanImporter: Importer = jsonDocumentImporter({
  kind: KIND,
  description: "Terraform plan JSON (terraform show -json PLANFILE): the planned estate",
  order: DETECTION_ORDER.json_terraform_plan,
  notA: "a Terraform plan: expected the JSON of " +
    `\`terraform show -json PLANFILE\` (an object with "format_version" and "planned_values").`,
  isDocument: looksLikePlan,
  read(plan): ImportResult {
    const instances = planInstances(plan);
    const builder = buildTerraformRecords(instances, {
      source: "terraform-plan",
      awsProvider: soleAwsProvider(plan),
    });
    const deleted = arr(plan.resource_changes).filter((c) => {
      const acts = arr(obj(obj(c).change).actions);
      return acts.includes("delete") && !acts.includes("create");
    }).length;
    if (deleted > 0) {
      builder.skip("planned for deletion", deleted);
      builder.warn(
        `${deleted} resources are planned for deletion and are not in the planned estate.`,
      );
    }
    evaluateRulesInto(builder.records);
    return builder.finish();
  },
});
