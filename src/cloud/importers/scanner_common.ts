/**
 * What the scanner-report importers share: severity normalisation (words,
 * OCSF severity ids, ScoutSuite levels), compliance framework normalisation
 * (`CIS-1.4` of an AWS check → `CIS` and `CIS-AWS`, `PCI-3.2.1` → `PCI-DSS`…),
 * the compliance results of the control ids a report states, JSON Lines
 * parsing and the finding constructor.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { ComplianceStatus, Severity } from "../model/enums.ts";
import type { ComplianceResult, Finding } from "../model/records.ts";
import type { Detector, ImportInput } from "./importer.ts";
import {
  fileLabel,
  ImportError,
  lineColumn,
  parseJsonText,
  readInputText,
  strings,
} from "./import_input.ts";

/** Normalises a scanner severity (word, number, ScoutSuite level); unknown → fallback. */
export function normaliseSeverity(value: unknown, fallback: Severity = "MEDIUM"): Severity {
  if (typeof value === "number") {
    // OCSF severity_id: 0 unknown, 1 informational … 5 critical, 6 fatal.
    if (value >= 5) return "CRITICAL";
    if (value === 4) return "HIGH";
    if (value === 3) return "MEDIUM";
    if (value === 2) return "LOW";
    return "INFO";
  }
  const text = String(value ?? "").trim().toLowerCase();
  switch (text) {
    case "critical":
    case "fatal":
    case "danger":
      return text === "danger" ? "HIGH" : "CRITICAL";
    case "high":
    case "error":
      return "HIGH";
    case "medium":
    case "moderate":
    case "warning":
      return "MEDIUM";
    case "low":
      return "LOW";
    case "informational":
    case "info":
    case "information":
    case "negligible":
    case "unknown":
    case "none":
      return "INFO";
    default:
      return fallback;
  }
}

/** Coarse framework families, matched on a tag's leading words. */
const FAMILIES: readonly [RegExp, string][] = [
  [/^cis\b|^cis[-_ ]/i, "CIS"],
  [/^nist[-_ ]?800[-_ ]?53/i, "NIST-800-53"],
  [/^nist[-_ ]?csf/i, "NIST-CSF"],
  [/^pci/i, "PCI-DSS"],
  [/^gdpr/i, "GDPR"],
  [/^hipaa/i, "HIPAA"],
  [/^soc[-_ ]?2/i, "SOC2"],
  [/^iso[-_ ]?27001/i, "ISO-27001"],
  [/^mitre/i, "MITRE-ATTACK"],
  [/^fedramp/i, "FEDRAMP"],
  // Not AWS-Foundational-Technical-Review, a different AWS programme Prowler also maps to.
  [/^aws[-_ ]foundational[-_ ]security/i, "AWS-Foundational-Security-Best-Practices"],
];

/**
 * Normalised framework names of a scanner's compliance tag: the coarse family
 * (`CIS`, `PCI-DSS`…) and, for CIS with a known provider, `CIS-<PROVIDER>`.
 * Unknown tags are kept as given.
 */
export function normaliseFrameworks(tag: string, provider: string | null): string[] {
  // Security Hub names a standard by ARN or id: `arn:aws:securityhub:::ruleset/
  // cis-aws-foundations-benchmark/v/1.2.0`, `standards/pci-dss/v/3.2.1`.
  const t = tag.trim().replace(
    /^(?:arn:[^:]+:securityhub:[^:]*:[^:]*:)?(?:standards|ruleset)\//,
    "",
  )
    .replace(/\/v\/[^/]+$/, "");
  if (t === "") return [];
  // A tag that already names the CIS benchmark's provider keeps it, whatever the resource says.
  const named = /^CIS[-_ ]?(AWS|AZURE|GCP)\b/i.exec(t);
  if (named) return ["CIS", `CIS-${named[1]!.toUpperCase()}`];
  for (const [re, family] of FAMILIES) {
    if (!re.test(t)) continue;
    if (family === "CIS" && provider) {
      const p = provider.toUpperCase() === "AZURE" ? "AZURE" : provider.toUpperCase();
      if (p === "AWS" || p === "AZURE" || p === "GCP") return ["CIS", `CIS-${p}`];
    }
    return [family];
  }
  return [t];
}

/** Unique framework names of several tags. */
export function frameworksOf(tags: readonly string[], provider: string | null): string[] {
  return [...new Set(tags.flatMap((t) => normaliseFrameworks(t, provider)))];
}

/**
 * The one framework a tag's control ids belong to: the provider's CIS
 * benchmark (`CIS-AWS`…) rather than the coarse `CIS` family tag beside it,
 * else the tag's one normalised name; null for an empty tag.
 */
export function controlFramework(tag: string, provider: string | null): string | null {
  const names = normaliseFrameworks(tag, provider);
  return names.find((n) => n !== "CIS") ?? names[0] ?? null;
}

/** A compliance tag as a title shows it: a Security Hub standard without its ARN prefix. */
function tagLabel(tag: string): string {
  return tag.trim().replace(/^arn:[^:]+:securityhub:[^:]*:[^:]*:(?:standards|ruleset)\//, "");
}

/**
 * The version numbers a tag names (`CIS-1.4` → [1, 4], `CIS GCP V1.1` → [1, 1],
 * `…/v/1.2.0` → [1, 2, 0], `MITRE-ATTACK` → []), or those of an explicit version.
 */
export function tagVersion(tag: string, version?: string | null): number[] {
  const text = version ?? /\/v\/([^/]+)$/.exec(tag.trim())?.[1] ?? tag;
  return (text.match(/\d+/g) ?? []).map(Number);
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** The controls one compliance tag of a check names. */
export interface TagControls {
  /** The tag as the scanner wrote it: `CIS-1.4`, `CIS GCP V1.1`, a Security Hub standard ARN. */
  tag: string;
  /** The control ids it lists. */
  controls: readonly string[];
  /** The version, when the scanner gives it apart from the tag (ScoutSuite). */
  version?: string | null;
  /** Control titles by control id, when the scanner gives them. */
  titles?: Readonly<Record<string, string>>;
}

/** What one check of a report found. */
export interface CheckOutcome {
  /** The compliance status the check's outcome means. */
  status: ComplianceStatus;
  /** The provider the check ran on (for CIS tags that do not name it), or null. */
  provider: string | null;
  /** The findings a failed check became (each finding of a report in one check only). */
  findingIds?: readonly string[];
  /** The resources checked (ARNs or other ids), when the report names them. */
  resources?: readonly string[];
}

interface ControlEntry {
  framework: string;
  control: string;
  label: string;
  title: string | null;
  status: ComplianceStatus;
  /** Finding ids in the order added. */
  findings: string[];
  /** The one resource every check so far named; null once they differ; undefined before any. */
  resource: string | null | undefined;
}

/**
 * The compliance results of one report, from the control ids its checks
 * state: one result per framework, control, status and tag (or tag version)
 * in the report — FAIL naming the findings of the failed checks, PASS (or
 * MANUAL) naming none — with the resource ARN when every check behind it was
 * on that one resource. A check that names several versions of one framework
 * (Prowler's `CIS-1.4` … `CIS-3.0`, all `CIS-AWS`) counts under the newest
 * version's control ids only, so one requirement is not several controls.
 *
 * @example
 * ```ts
 * import { ScannerCompliance } from "./scanner_common.ts";
 * const c = new ScannerCompliance("prowler");
 * c.add([{ tag: "CIS-1.4", controls: ["1.20"] }, { tag: "CIS-3.0", controls: ["1.20"] }], {
 *   status: "FAIL",
 *   provider: "aws",
 *   findingIds: ["f1"],
 * });
 * const [result] = c.results();
 * console.assert(result?.framework === "CIS-AWS" && result.control_title === "CIS-3.0 1.20");
 * ```
 */
export class ScannerCompliance {
  readonly #tool: string;
  readonly #entries = new Map<string, ControlEntry>();

  /** A collector for the reports of one tool (the results' ids start with its name). */
  constructor(tool: string) {
    this.#tool = tool;
  }

  /** Records what one check found for the controls its tags name. */
  add(tags: readonly TagControls[], outcome: CheckOutcome): void {
    const newest = new Map<string, number[]>();
    const named: { framework: string; version: number[]; tag: TagControls }[] = [];
    for (const tag of tags) {
      const framework = controlFramework(tag.tag, outcome.provider);
      if (framework === null) continue;
      const version = tagVersion(tag.tag, tag.version);
      named.push({ framework, version, tag });
      const best = newest.get(framework);
      if (best === undefined || compareVersions(version, best) > 0) newest.set(framework, version);
    }
    const resources = outcome.resources ?? [];
    const resource = resources.length === 1 ? resources[0]! : null;
    for (const { framework, version, tag } of named) {
      if (compareVersions(version, newest.get(framework)!) !== 0) continue;
      const label = tag.version ? `${tagLabel(tag.tag)} ${tag.version}` : tagLabel(tag.tag);
      const seen = new Set<string>();
      for (const raw of tag.controls) {
        const control = raw.trim();
        if (control === "" || seen.has(control)) continue;
        seen.add(control);
        const key = [framework, control, outcome.status, label].join("\u0000");
        let entry = this.#entries.get(key);
        if (entry === undefined) {
          entry = {
            framework,
            control,
            label,
            title: tag.titles?.[raw]?.trim() || null,
            status: outcome.status,
            findings: [],
            resource: undefined,
          };
          this.#entries.set(key, entry);
        }
        for (const id of outcome.findingIds ?? []) entry.findings.push(id);
        entry.resource = entry.resource === undefined || entry.resource === resource
          ? resource
          : null;
      }
    }
  }

  /**
   * The results recorded, in the order their controls were first named. Their
   * finding id lists are the collector's own: ask once the report is read.
   */
  results(): ComplianceResult[] {
    return [...this.#entries.values()].map((e) => {
      let digest = "";
      if (e.findings.length > 0) {
        // Fed id by id: one joined string of a large report's ids would be megabytes.
        const hash = createHash("sha256");
        for (const id of e.findings) hash.update(id).update("\n");
        digest = `:${hash.digest("hex").slice(0, 16)}`;
      }
      return {
        // The findings' digest keeps the results of two reports apart when both are ingested.
        id: `${this.#tool}:${e.label}:${e.control}:${e.status}${digest}`,
        framework: e.framework,
        control_id: e.control,
        control_title: `${e.label} ${e.control}${e.title ? `: ${e.title}` : ""}`,
        status: e.status,
        finding_ids: e.findings,
        resource_arn: arnOrNull(e.resource ?? null),
      };
    });
  }
}

/**
 * The tags of a `{framework: [control ids]}` map (Prowler's OCSF
 * `unmapped.compliance`); a value that is one string is one control id.
 */
export function tagControlsOf(map: Record<string, unknown>): TagControls[] {
  return Object.entries(map).map(([tag, ids]) => ({ tag, controls: strings(ids) }));
}

/** Parses JSON, or JSON Lines when the whole text is not one document. */
export function parseJsonOrLines(
  text: string,
  options: { kind: string; path: string },
): unknown {
  const { kind, path } = options;
  try {
    return JSON.parse(text);
  } catch {
    // fall through to JSON Lines
  }
  const first = text.trimStart();
  if (!first.startsWith("{")) return parseJsonText(text, { kind: kind, path: path });
  const out: unknown[] = [];
  // Line by line: each line's text is garbage once parsed, never all lines at once.
  for (let offset = 0; offset < text.length;) {
    const newline = text.indexOf("\n", offset);
    const end = newline < 0 ? text.length : newline;
    const trimmed = text.slice(offset, end).trim();
    if (trimmed !== "") {
      try {
        out.push(JSON.parse(trimmed));
      } catch {
        const { line: n } = lineColumn(text, offset);
        if (out.length === 0) return parseJsonText(text, { kind: kind, path: path });
        throw new ImportError(
          `${fileLabel(path)} is neither one JSON document nor JSON Lines: line ${n} is not a ` +
            `JSON object (truncated?). A ${kind} input is a JSON array or one JSON object per line.`,
          { kind: kind, file: path },
        );
      }
    }
    offset = end + 1;
  }
  return out;
}

/** The input's parsed value: its JSON as given, else its text as one JSON document or JSON Lines. */
export async function readJsonOrLines(kind: string, input: ImportInput): Promise<unknown> {
  return input.json ??
    parseJsonOrLines(await readInputText(input, { kind, path: input.path }), {
      kind,
      path: input.path,
    });
}

/** The two JSON detectors of a kind that is a JSON object or an array, each at its own place. */
export function objectOrArrayDetectors(
  test: (value: unknown) => boolean,
  order: { object: number; array: number },
): Detector[] {
  return [
    { stage: "json", order: order.object, test: (v) => !Array.isArray(v) && test(v) },
    { stage: "json", order: order.array, test: (v) => Array.isArray(v) && test(v) },
  ];
}

/**
 * A scanner's date-time text as ISO 8601: `2024-06-03T14:15:19.382075` or
 * `2025-02-14 14:27:20.697446` (a space for the T), zone-less meaning UTC,
 * digits past the millisecond dropped; null when it is no date.
 */
export function utcDateTime(value: unknown): string | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = value.trim().replace(" ", "T");
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text.slice(0, 23)}Z`;
  const d = new Date(zoned);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A finding with defaults for the fields scanners rarely give. */
export function scannerFinding(
  init:
    & Partial<Finding>
    & Pick<Finding, "id" | "resource_id" | "title" | "severity" | "source_tool">,
): Finding {
  return {
    resource_arn: null,
    description: "",
    evidence: "",
    remediation: "",
    source_finding_id: null,
    compliance_frameworks: [],
    cvss_score: null,
    // No time in the report: none is made up.
    detected_at: null,
    is_suppressed: false,
    ...init,
  };
}

/** The ARN of a resource id when it is one, else null. */
export function arnOrNull(id: string | null): string | null {
  return id !== null && id.startsWith("arn:") ? id : null;
}
