/**
 * The `scoutsuite` importer: ScoutSuite's `scoutsuite_results_<provider>-<id>.js`
 * (a JavaScript file assigning one JSON object), or a report folder holding
 * one. Every flagged item of every rule becomes a finding on the resource the
 * item path names (the id after the deepest resource collection), named as
 * the provider names it when the report holds that resource (see
 * {@linkcode scoutSuiteResourceId}). The controls a rule names (`compliance`:
 * `{name, version, reference}`) become compliance results: FAIL naming the
 * rule's findings, PASS when the rule checked more items than it flagged.
 *
 * @module
 */

import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportInput, ImportResult } from "./importer.ts";
import {
  arr,
  fileLabel,
  ImportError,
  isObject,
  obj,
  parseJsonText,
  readInputText,
  str,
  strings,
} from "./import_input.ts";
import { RecordsBuilder } from "./records_builder.ts";
import { arnOrNull, frameworksOf, normaliseSeverity, scannerFinding } from "./scanner_common.ts";
import { ScannerCompliance, type TagControls } from "./scanner_common.ts";

const KIND = "scoutsuite";

const RESULTS_FILE = /^scoutsuite_results.*\.js$/;

/** Whether a directory's names show a ScoutSuite report. */
export function looksLikeScoutSuiteDirectory(names: readonly string[]): boolean {
  return names.some((n) => RESULTS_FILE.test(n)) || names.includes("scoutsuite-results");
}

/** The JSON object of a ScoutSuite results script (`scoutsuite_results = {...}`). */
export function scoutSuiteJson(path: string, text: string): unknown {
  const eq = text.indexOf("=");
  const brace = text.indexOf("{");
  if (brace === -1 || eq === -1 || eq > brace) {
    throw new ImportError(
      `${
        fileLabel(path)
      } is not a ScoutSuite results script: expected \`scoutsuite_results = { … }\`.`,
      { kind: KIND, file: path },
    );
  }
  const trimmed = text.slice(brace).trimEnd();
  const body = trimmed.endsWith(";") ? trimmed.slice(0, -1) : trimmed;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    // Padded only to locate the error, so a good file is never copied whole.
    value = parseJsonText(" ".repeat(brace) + body, { kind: KIND, path: path });
  }
  if (!isObject(value) || !isObject(value.services)) {
    throw new ImportError(
      `${fileLabel(path)} is not ScoutSuite output: the assigned object has no "services".`,
      { kind: KIND, file: path },
    );
  }
  return value;
}

/** Template keys that hold resources (the id after the deepest one is the resource). */
const COLLECTIONS = new Set([
  "vpcs",
  "subnets",
  "security_groups",
  "network_acls",
  "instances",
  "volumes",
  "snapshots",
  "images",
  "buckets",
  "users",
  "roles",
  "groups",
  "policies",
  "trails",
  "keys",
  "functions",
  "queues",
  "topics",
  "load_balancers",
  "elbs",
  "clusters",
  "domains",
  "databases",
  "db_instances",
  "repositories",
  "secrets",
  "certificates",
  "storage_accounts",
  "virtual_machines",
  "network_security_groups",
  "key_vaults",
  "servers",
  "firewalls",
  "networks",
  "projects",
  "service_accounts",
  "credential_reports",
]);

/**
 * Where in an item path the resource's key is: after the deepest resource
 * collection the rule's path template names, else at the template's last
 * `id`; null when the template names none (the item path is the resource).
 */
function resourceIndex(template: string, item: string): number | null {
  const t = template.split(".");
  const parts = item.split(".");
  let chosen: number | null = null;
  for (let i = 1; i < t.length && i < parts.length; i++) {
    if (t[i] === "id" && COLLECTIONS.has(t[i - 1] ?? "")) chosen = i;
  }
  if (chosen !== null) return chosen;
  for (let i = t.length - 1; i >= 0; i--) if (t[i] === "id" && i < parts.length) return i;
  return null;
}

/** The key ScoutSuite gives a resource it has no usable id for: a SHA-1 in hex. */
const SCOUTSUITE_HASH = /^[0-9a-f]{40}$/i;

/**
 * How the provider names a resource ScoutSuite holds under `key`: its ARN
 * (`arn:…`), its Azure resource id (`/subscriptions/…`), its own id unless
 * that is ScoutSuite's hash, its name — a GCP resource by its name first, as
 * Google's APIs address it, the numeric id after — else the key itself.
 */
export function scoutSuiteResourceId(
  resource: Record<string, unknown>,
  key: string,
  provider: string,
): string {
  const arn = str(resource.arn);
  if (arn?.startsWith("arn:")) return arn;
  const rawId = resource.id;
  const id = typeof rawId === "number" ? String(rawId) : str(rawId);
  if (id?.startsWith("/subscriptions/")) return id;
  const ownId = id !== null && !SCOUTSUITE_HASH.test(id) ? id : null;
  const name = str(resource.name);
  const named = provider === "GCP" ? name ?? ownId : ownId ?? name;
  return named ?? key;
}

/**
 * The id of the resource an item path names: as the provider names it when
 * the report holds the resource, else the key the path gives.
 */
function resourceOf(
  services: Record<string, unknown>,
  template: string,
  item: string,
  provider: string,
): string {
  const index = resourceIndex(template, item);
  if (index === null) return item;
  const parts = item.split(".");
  const key = parts[index]!;
  let node: unknown = services;
  for (let i = 0; i <= index && isObject(node); i++) node = node[parts[i]!];
  return isObject(node) ? scoutSuiteResourceId(node, key, provider) : key;
}

/**
 * The controls a ScoutSuite rule names: each `compliance` entry's
 * `reference` under its `name` (the benchmark), with its `version`.
 */
function ruleControls(rule: Record<string, unknown>): TagControls[] {
  return arr(rule.compliance).map(obj).flatMap((c) => {
    const tag = str(c.name);
    const reference = str(c.reference);
    return tag && reference ? [{ tag, controls: [reference], version: str(c.version) }] : [];
  });
}

async function findResults(input: ImportInput, dir: string, depth: number): Promise<string | null> {
  const entries = await input.listDirectory(dir).catch(() => []);
  const hit = entries.find((e) => e.isFile && RESULTS_FILE.test(e.name));
  if (hit) return `${dir.replace(/\/$/, "")}/${hit.name}`;
  if (depth === 0) return null;
  for (const e of entries.filter((x) => x.isDirectory).slice(0, 50)) {
    const found = await findResults(input, `${dir.replace(/\/$/, "")}/${e.name}`, depth - 1);
    if (found) return found;
  }
  return null;
}

/** The `scoutsuite` importer entry. */
export const scoutSuiteImporter: Importer = {
  kind: KIND,
  description: "ScoutSuite results script (scoutsuite_results*.js), or a report folder holding one",
  detectors: [
    {
      stage: "directory",
      order: DETECTION_ORDER.directory_scoutsuite,
      test: async (listing) =>
        looksLikeScoutSuiteDirectory(listing.names) ||
        (await listing.walk()).some((p) => RESULTS_FILE.test(p.slice(p.lastIndexOf("/") + 1))),
    },
    {
      stage: "file_name",
      order: DETECTION_ORDER.file_name_scoutsuite,
      test: (name) => name.endsWith(".js") || name.startsWith("scoutsuite_results"),
    },
  ],
  async load(input: ImportInput): Promise<ImportResult> {
    let path = input.path;
    const listing = await input.listDirectory(path).catch(() => null);
    if (listing !== null) {
      const found = await findResults(input, path, 5);
      if (!found) {
        throw new ImportError(
          `${
            fileLabel(path)
          } holds no scoutsuite_results*.js file (looked 5 folders deep, as detection does).`,
          { kind: KIND, file: path },
        );
      }
      path = found;
    }
    const report = obj(
      scoutSuiteJson(path, await readInputText(input, { kind: KIND, path: path })),
    );
    const provider = (str(report.provider_code) ?? "aws").toUpperCase();
    const services = obj(report.services);
    const b = new RecordsBuilder();
    const controls = new ScannerCompliance(KIND);
    for (const [serviceName, service] of Object.entries(services)) {
      for (const [ruleName, rule] of Object.entries(obj(obj(service).findings))) {
        const r = obj(rule);
        const items = strings(r.items);
        const checked = typeof r.checked_items === "number" ? r.checked_items : 0;
        const ruleTags = ruleControls(r);
        // Items it checked and did not flag passed.
        if (checked > items.length) controls.add(ruleTags, { status: "PASS", provider });
        if (items.length === 0) {
          b.skip("rule with no flagged item");
          continue;
        }
        const template = str(r.path) ?? "";
        const tags = arr(r.compliance).map((c) => str(obj(c).name) ?? "").filter((x) => x !== "");
        const ids: string[] = [];
        const resources: string[] = [];
        for (const item of items) {
          const id = `scoutsuite:${serviceName}:${ruleName}:${item}`;
          const resourceId = resourceOf(services, template, item, provider);
          b.records.findings.push(scannerFinding({
            id,
            resource_id: resourceId,
            resource_arn: arnOrNull(resourceId),
            severity: normaliseSeverity(r.level, "MEDIUM"),
            title: str(r.description) ?? ruleName,
            description: str(r.rationale) ?? "",
            evidence: item,
            remediation: str(r.remediation) ?? "",
            source_tool: "scoutsuite",
            source_finding_id: ruleName,
            compliance_frameworks: frameworksOf(tags, provider),
          }));
          ids.push(id);
          resources.push(resourceId);
        }
        controls.add(ruleTags, { status: "FAIL", provider, findingIds: ids, resources });
      }
    }
    for (const result of controls.results()) b.records.compliance.push(result);
    b.records.providers = [provider];
    return b.finish();
  },
};
