/**
 * What the scanner-report importers share: severity normalisation (words,
 * OCSF severity ids, ScoutSuite levels), compliance framework normalisation
 * (`CIS-1.4` of an AWS check → `CIS` and `CIS-AWS`, `PCI-3.2.1` → `PCI-DSS`…),
 * JSON Lines parsing and the finding constructor.
 *
 * @module
 */

import type { Severity } from "../model/enums.ts";
import type { Finding } from "../model/records.ts";
import type { Detector, ImportInput } from "./importer.ts";
import {
  fileLabel,
  ImportError,
  lineColumn,
  parseJsonText,
  readInputText,
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
