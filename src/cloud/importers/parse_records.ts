/**
 * Turns cloudg-shaped JSON (`assets`, `edges`, `findings`, `compliance`, …)
 * into dataset records. Errors name the location and the expected type,
 * never the input value. Unknown asset types become `OTHER` (the original
 * type kept in `metadata.source_asset_type` and counted in the notes); edges
 * of unknown type are dropped and counted; computed fields (`display_id`,
 * `risk_score`) are ignored.
 *
 * @module
 */

import {
  ASSET_TYPES,
  type AssetType,
  type CloudProvider,
  COMPLIANCE_STATUSES,
  type ComplianceStatus,
  EDGE_TYPES,
  type EdgeType,
  PROVIDERS,
  RELATION_TYPES,
  type RelationType,
  SEVERITIES,
  type Severity,
} from "../model/enums.ts";
import { LoadError } from "../model/errors.ts";
import { enumKey } from "../model/parse_enum.ts";
import type {
  Asset,
  ComplianceResult,
  DatasetRecords,
  Edge,
  Finding,
  Json,
} from "../model/records.ts";
import { emptyRecords } from "../model/records.ts";
import type { LoadNotes } from "./importer.ts";
import { isObject } from "./import_input.ts";

type Obj = Record<string, unknown>;

/** A value lookup by enum key, remembering every raw spelling it has seen. */
class EnumTable<T extends string> {
  #byKey: Map<string, T>;
  #seen = new Map<string, T | undefined>();

  constructor(values: readonly T[]) {
    this.#byKey = new Map(values.map((v) => [enumKey(v), v]));
    for (const v of values) this.#seen.set(v, v);
  }

  get(raw: string): T | undefined {
    if (this.#seen.has(raw)) return this.#seen.get(raw);
    const value = this.#byKey.get(enumKey(raw));
    if (this.#seen.size < 4096) this.#seen.set(raw, value);
    return value;
  }
}

function lookupTable<T extends string>(values: readonly T[]): EnumTable<T> {
  return new EnumTable(values);
}
const ASSET_TYPE_BY_KEY = lookupTable(ASSET_TYPES);
const EDGE_TYPE_BY_KEY = lookupTable(EDGE_TYPES);
const RELATION_BY_KEY = lookupTable(RELATION_TYPES);
const SEVERITY_BY_KEY = lookupTable(SEVERITIES);
const STATUS_BY_KEY = lookupTable(COMPLIANCE_STATUSES);
const PROVIDER_BY_KEY = lookupTable(PROVIDERS);

function fail(where: string, expected: string): never {
  throw new LoadError(`Cannot load the dataset: ${where} must be ${expected}.`, {
    location: where,
    expected,
  });
}

function str(obj: Obj, key: string, where: string, fallback?: string): string {
  const value = obj[key];
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    fail(`${where}.${key}`, "a string");
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string") fail(`${where}.${key}`, "a string");
  return value;
}

function firstStr(obj: Obj, keys: string[], where: string, fallback: string): string {
  for (const key of keys) {
    if (obj[key] !== undefined && obj[key] !== null) return str(obj, key, where);
  }
  return fallback;
}

function optStr(obj: Obj, key: string, where: string): string | null {
  const value = obj[key];
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") fail(`${where}.${key}`, "a string or null");
  return value;
}

function bool(obj: Obj, key: string, where: string, fallback: boolean): boolean {
  const value = obj[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") fail(`${where}.${key}`, "true or false");
  return value;
}

function jsonObject(obj: Obj, key: string, where: string): Record<string, Json> {
  const value = obj[key];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) fail(`${where}.${key}`, "an object");
  return value as Record<string, Json>;
}

function stringList(obj: Obj, key: string, where: string): string[] {
  const value = obj[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(`${where}.${key}`, "a list of strings");
  return value.map((item, i) => {
    if (typeof item !== "string") fail(`${where}.${key}[${i}]`, "a string");
    return item;
  });
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(where, "a list");
  return value;
}

function count(table: Record<string, number>, key: string): void {
  table[key] = (table[key] ?? 0) + 1;
}

/** One asset from JSON. */
export function parseAsset(value: unknown, where: string, notes: LoadNotes): Asset {
  if (!isObject(value)) fail(where, "an object");
  const rawType = firstStr(value, ["asset_type", "type"], where, "OTHER");
  let assetType: AssetType | undefined = ASSET_TYPE_BY_KEY.get(rawType);
  const metadata = { ...jsonObject(value, "metadata", where) };
  if (assetType === undefined) {
    assetType = "OTHER";
    count(notes.unknown_asset_types, rawType);
    metadata["source_asset_type"] = rawType;
  }
  const rawProvider = str(value, "provider", where, "AWS");
  const provider: CloudProvider | undefined = PROVIDER_BY_KEY.get(rawProvider);
  if (provider === undefined) fail(`${where}.provider`, `one of ${PROVIDERS.join(", ")}`);
  const tagsRaw = jsonObject(value, "tags", where);
  const tags: Record<string, string> = {};
  for (const [key, tag] of Object.entries(tagsRaw)) {
    tags[key] = typeof tag === "string" ? tag : JSON.stringify(tag);
  }
  const id = str(value, "id", where);
  if (id === "") fail(`${where}.id`, "a non-empty string");
  return {
    id,
    arn: optStr(value, "arn", where),
    name: str(value, "name", where, id),
    asset_type: assetType,
    provider,
    region: str(value, "region", where, "global") || "global",
    account_id: optStr(value, "account_id", where),
    tags,
    metadata,
    collected_at: str(value, "collected_at", where, ""),
    is_internet_exposed: bool(value, "is_internet_exposed", where, false),
  };
}

/** One edge from JSON, or null when its type is unknown (counted in the notes). */
export function parseEdge(
  value: unknown,
  where: string,
  notes: LoadNotes,
  index: number,
): Edge | null {
  if (!isObject(value)) fail(where, "an object");
  const rawType = firstStr(value, ["edge_type", "type"], where, "");
  const edgeType: EdgeType | undefined = EDGE_TYPE_BY_KEY.get(rawType);
  if (edgeType === undefined) {
    count(notes.unknown_edge_types, rawType === "" ? "(none)" : rawType);
    return null;
  }
  const portsRaw = value["ports"];
  const ports: number[] = [];
  if (portsRaw !== undefined && portsRaw !== null) {
    if (!Array.isArray(portsRaw)) fail(`${where}.ports`, "a list of integers");
    portsRaw.forEach((port, i) => {
      if (!Number.isInteger(port)) fail(`${where}.ports[${i}]`, "an integer");
      ports.push(port as number);
    });
  }
  const direction = optStr(value, "direction", where)?.toLowerCase() ?? "ingress";
  if (direction !== "ingress" && direction !== "egress") {
    fail(`${where}.direction`, "ingress or egress");
  }
  const relationRaw = optStr(value, "relationship", where);
  const relationship: RelationType | null = relationRaw === null
    ? null
    : RELATION_BY_KEY.get(relationRaw) ?? null;
  return {
    id: str(value, "id", where, `edge-${index}`),
    source_id: firstStr(value, ["source_id", "source"], where, "") ||
      fail(`${where}.source_id`, "a non-empty string"),
    target_id: firstStr(value, ["target_id", "target"], where, "") ||
      fail(`${where}.target_id`, "a non-empty string"),
    edge_type: edgeType,
    ports,
    port_range: optStr(value, "port_range", where),
    protocol: optStr(value, "protocol", where),
    cidr: optStr(value, "cidr", where),
    direction,
    description: optStr(value, "description", where),
    relationship,
    properties: jsonObject(value, "properties", where),
  };
}

/** One finding from JSON. */
export function parseFinding(value: unknown, where: string, index: number): Finding {
  if (!isObject(value)) fail(where, "an object");
  const severity: Severity | undefined = SEVERITY_BY_KEY.get(
    str(value, "severity", where, "INFO"),
  );
  if (severity === undefined) fail(`${where}.severity`, `one of ${SEVERITIES.join(", ")}`);
  const cvssRaw = value["cvss_score"];
  let cvss: number | null = null;
  if (cvssRaw !== undefined && cvssRaw !== null) {
    if (typeof cvssRaw !== "number" || !(cvssRaw >= 0 && cvssRaw <= 10)) {
      fail(`${where}.cvss_score`, "a number from 0 to 10 or null");
    }
    cvss = cvssRaw;
  }
  const resourceId = str(value, "resource_id", where);
  return {
    id: str(value, "id", where, `finding-${index}`),
    resource_id: resourceId,
    resource_arn: optStr(value, "resource_arn", where),
    severity,
    title: str(value, "title", where, ""),
    description: str(value, "description", where, ""),
    evidence: typeof value["evidence"] === "string" || value["evidence"] === undefined ||
        value["evidence"] === null
      ? str(value, "evidence", where, "")
      : JSON.stringify(value["evidence"]),
    remediation: str(value, "remediation", where, ""),
    source_tool: str(value, "source_tool", where, "unknown"),
    source_finding_id: optStr(value, "source_finding_id", where),
    compliance_frameworks: stringList(value, "compliance_frameworks", where),
    cvss_score: cvss,
    detected_at: optStr(value, "detected_at", where),
    is_suppressed: bool(value, "is_suppressed", where, false),
  };
}

/** One compliance result from JSON. */
export function parseCompliance(value: unknown, where: string, index: number): ComplianceResult {
  if (!isObject(value)) fail(where, "an object");
  const status: ComplianceStatus | undefined = STATUS_BY_KEY.get(
    str(value, "status", where),
  );
  if (status === undefined) fail(`${where}.status`, `one of ${COMPLIANCE_STATUSES.join(", ")}`);
  return {
    id: str(value, "id", where, `compliance-${index}`),
    framework: str(value, "framework", where),
    control_id: str(value, "control_id", where),
    control_title: str(value, "control_title", where, ""),
    status,
    finding_ids: stringList(value, "finding_ids", where),
    resource_arn: optStr(value, "resource_arn", where),
  };
}

/**
 * Reads the record keys of a cloudg-shaped document: `assets`, `edges`,
 * `findings`, `compliance`, `unresolved_references`, `providers`, `regions`,
 * `organization`, `coverage`, `suppression_reasons`.
 */
export function parseRecords(doc: Obj, notes: LoadNotes): DatasetRecords {
  const records = emptyRecords();
  records.assets = list(doc["assets"], "assets").map((a, i) =>
    parseAsset(a, `assets[${i}]`, notes)
  );
  for (const [i, e] of list(doc["edges"], "edges").entries()) {
    const edge = parseEdge(e, `edges[${i}]`, notes, i);
    if (edge) records.edges.push(edge);
  }
  records.findings = list(doc["findings"], "findings").map((f, i) =>
    parseFinding(f, `findings[${i}]`, i)
  );
  records.compliance = list(doc["compliance"], "compliance").map((c, i) =>
    parseCompliance(c, `compliance[${i}]`, i)
  );
  records.unresolved_references = list(
    doc["unresolved_references"],
    "unresolved_references",
  ) as Json[];
  records.coverage = list(doc["coverage"], "coverage") as Json[];
  records.providers = stringList(doc, "providers", "document");
  records.regions = stringList(doc, "regions", "document");
  const organization = doc["organization"];
  if (organization !== undefined && organization !== null && !isObject(organization)) {
    fail("organization", "an object or null");
  }
  records.organization = (organization ?? null) as Json | null;
  const reasons = jsonObject(doc, "suppression_reasons", "document");
  for (const [id, reason] of Object.entries(reasons)) {
    if (typeof reason === "string") records.suppression_reasons[id] = reason;
  }
  fillProvidersAndRegions(records);
  return records;
}

/** Fills `providers` and `regions` from the assets when the source declared none. */
export function fillProvidersAndRegions(records: DatasetRecords): void {
  if (records.providers.length === 0) {
    records.providers = PROVIDERS.filter((p) => records.assets.some((a) => a.provider === p));
  }
  if (records.regions.length === 0) {
    records.regions = [...new Set(records.assets.map((a) => a.region))].sort();
  }
}

/** Merges the findings and compliance results of `extra` into `records` (ids already present kept). */
export function mergeFindings(records: DatasetRecords, extra: DatasetRecords): void {
  const findingIds = new Set(records.findings.map((f) => f.id));
  for (const finding of extra.findings) {
    if (!findingIds.has(finding.id)) {
      records.findings.push(finding);
      findingIds.add(finding.id);
    }
  }
  const resultIds = new Set(records.compliance.map((c) => c.id));
  for (const result of extra.compliance) {
    if (!resultIds.has(result.id)) {
      records.compliance.push(result);
      resultIds.add(result.id);
    }
  }
  Object.assign(records.suppression_reasons, extra.suppression_reasons);
}
