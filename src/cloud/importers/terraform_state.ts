/**
 * The `terraform` importer: Terraform state version 4 (`terraform.tfstate`,
 * Terraform 0.12 and later), with modules, `count`/`for_each` instances and
 * dependencies. Other state versions, and version-4 states claiming a
 * Terraform release that never wrote them or no valid release at all, are
 * refused with the version named.
 *
 * @module
 */

import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportResult } from "./importer.ts";
import {
  arr,
  fileLabel,
  ImportError,
  isObject,
  jsonDocumentImporter,
  obj,
  str,
} from "./import_input.ts";
import type { TerraformInstance } from "./terraform_graph.ts";
import { buildTerraformRecords } from "./terraform_graph.ts";
import { evaluateRulesInto } from "../rules/rule_evaluate.ts";

const KIND = "terraform";

/** The instance-key suffix of an address: `[0]` for count, `["key"]` for for_each. */
export function indexSuffix(key: unknown): string {
  if (typeof key === "number") return `[${key}]`;
  if (typeof key === "string") return `[${JSON.stringify(key)}]`;
  return "";
}

/** Parses `major.minor.patch` (pre-release suffix allowed), or null. */
export function parseTerraformVersion(text: string): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]+)?$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Checks the state header; throws a clear ImportError naming what is wrong. */
export function checkStateVersion(path: string, state: Record<string, unknown>): void {
  const label = fileLabel(path);
  if (state.version !== 4) {
    throw new ImportError(
      `${label} is a Terraform state of version ${JSON.stringify(state.version ?? null)}; ` +
        `only state version 4 (written by Terraform 0.12 and later) is supported.`,
      { kind: KIND, file: path },
    );
  }
  const tv = typeof state.terraform_version === "string" ? state.terraform_version : "";
  const parsed = parseTerraformVersion(tv);
  if (parsed === null) {
    throw new ImportError(
      `${label} declares terraform_version ${JSON.stringify(state.terraform_version ?? null)}, ` +
        `which is not a valid Terraform version string (expected major.minor.patch, e.g. "1.5.7").`,
      { kind: KIND, file: path },
    );
  }
  const [major, minor] = parsed;
  if (major === 0 && minor < 12) {
    throw new ImportError(
      `${label} declares terraform_version "${tv}", which is not supported: state version 4 ` +
        `is written by Terraform 0.12 and later.`,
      { kind: KIND, file: path },
    );
  }
}

/** The instances of a version-4 state. */
export function stateInstances(state: Record<string, unknown>): TerraformInstance[] {
  const out: TerraformInstance[] = [];
  for (const r of arr(state.resources)) {
    const res = obj(r);
    const type = str(res.type);
    const name = str(res.name);
    if (!type || !name) continue;
    const mode = res.mode === "data" ? "data" : "managed";
    const module = str(res.module) ?? "";
    const resourceAddress = `${module ? module + "." : ""}${
      mode === "data" ? "data." : ""
    }${type}.${name}`;
    const resourceDeps = arr(res.depends_on).filter((d): d is string => typeof d === "string");
    for (const i of arr(res.instances)) {
      const inst = obj(i);
      out.push({
        address: resourceAddress + indexSuffix(inst.index_key),
        resourceAddress,
        module,
        mode,
        type,
        name,
        values: obj(inst.attributes),
        dependencies: [
          ...resourceDeps,
          ...arr(inst.dependencies).filter((d): d is string => typeof d === "string"),
        ],
        references: {},
      });
    }
  }
  return out;
}

/**
 * Whether one AWS provider configuration manages every AWS resource of the state (they all
 * name the same unaliased root `provider["…/aws"]`); its region is not written in a state.
 */
export function soleAwsProvider(state: Record<string, unknown>): { region: null } | null {
  const providers = new Set(
    arr(state.resources).map(obj).filter((r) => r.mode !== "data")
      .map((r) => str(r.provider) ?? "").filter((p) => /\/aws"\]/.test(p)),
  );
  if (providers.size !== 1) return null;
  return /^provider\["[^"]+\/aws"\]$/.test([...providers][0]!) ? { region: null } : null;
}

/** Whether parsed JSON looks like a Terraform state. */
export function looksLikeState(value: unknown): boolean {
  return isObject(value) && "terraform_version" in value && "version" in value &&
    ("resources" in value || "modules" in value || "lineage" in value);
}

/** The `terraform` importer entry. */
export const terraformStateImporter: Importer = jsonDocumentImporter({
  kind: KIND,
  description: "Terraform state v4 (terraform.tfstate) for the AWS, AzureRM and Google providers",
  order: DETECTION_ORDER.json_terraform_state,
  isDocument: looksLikeState,
  notA: "a Terraform state: expected a JSON object with " +
    `"version", "terraform_version" and "resources" (a terraform.tfstate file).`,
  read(state, input): ImportResult {
    checkStateVersion(input.path, state);
    const builder = buildTerraformRecords(stateInstances(state), {
      source: "terraform-state",
      awsProvider: soleAwsProvider(state),
    });
    // A resource whose instances list is empty (destroyed, or never created) has nothing to read.
    const declared = arr(state.resources).map(obj).filter((r) => str(r.type) && str(r.name));
    const empty = declared.filter((r) => arr(r.instances).length === 0).length;
    if (empty > 0) builder.skip("resource without instances", empty);
    if (empty > 0 && empty === declared.length) {
      builder.warn(
        `None of the state's ${empty} resources has an instance (destroyed, or never applied): ` +
          "it describes no infrastructure.",
      );
    }
    evaluateRulesInto(builder.records);
    return builder.finish();
  },
});
