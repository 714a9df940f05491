/**
 * The `trivy` importer: Trivy's JSON report (`trivy image|fs|repo|config -f json`)
 * with vulnerabilities, misconfigurations and secrets per target. Each becomes
 * a finding: on the scanned image for an image (its name, or the OS target's
 * when the report leaves ArtifactName empty), on the file a target names for a
 * filesystem or repository scan (requirements.txt, secret.txt), on the
 * misconfigured resource for a misconfiguration. A vulnerability Trivy marks
 * `not_affected` is skipped, as a passed check is. CVSS scores are kept (NVD
 * first, then the vendor's), CVE ids tag the finding `CVE`.
 *
 * @module
 */

import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportResult } from "./importer.ts";
import { arr, isObject, jsonDocumentImporter, obj, str } from "./import_input.ts";
import { RecordsBuilder } from "./records_builder.ts";
import { normaliseSeverity, scannerFinding } from "./scanner_common.ts";
import { uniqueIds } from "../model/unique_ids.ts";

const KIND = "trivy";

/** Whether parsed JSON is a Trivy report. */
export function looksLikeTrivy(value: unknown): boolean {
  return isObject(value) && "Results" in value &&
    ("ArtifactName" in value || "SchemaVersion" in value || "ArtifactType" in value);
}

function cvss(v: Record<string, unknown>): number | null {
  const all = obj(v.CVSS);
  for (const source of ["nvd", "redhat", "ghsa", ...Object.keys(all)]) {
    const score = obj(all[source]).V3Score ?? obj(all[source]).V2Score;
    if (typeof score === "number" && score >= 0 && score <= 10) return score;
  }
  return null;
}

/** The `trivy` importer entry. */
export const trivyImporter: Importer = jsonDocumentImporter({
  kind: KIND,
  description: "Trivy image or filesystem report (trivy … -f json)",
  order: DETECTION_ORDER.json_trivy,
  isDocument: looksLikeTrivy,
  notA: "a Trivy report: expected the JSON of `trivy … -f json` (an object with " +
    '"Results" and "ArtifactName" or "SchemaVersion").',
  read(report): ImportResult {
    const artifactType = str(report.ArtifactType);
    // A filesystem or repository scan names files as targets: they are what a finding is about.
    const byFile = artifactType === "filesystem" || artifactType === "repository";
    const firstTarget = str(obj(arr(report.Results)[0]).Target);
    const artifact = str(report.ArtifactName) ??
      // An image's OS target reads "<image> (<os> <version>)".
      firstTarget?.replace(/ \([^()]*\)$/, "") ?? "unknown";
    const b = new RecordsBuilder();
    const uniqueId = uniqueIds();
    const push = (base: string, f: Parameters<typeof scannerFinding>[0]) => {
      b.records.findings.push(scannerFinding({ ...f, id: uniqueId(base) }));
    };
    // The report's own time (newer Trivy writes CreatedAt), else none.
    const when = str(report.CreatedAt);
    for (const result of arr(report.Results).map(obj)) {
      const target = str(result.Target) ?? artifact;
      const subject = byFile ? target : artifact;
      for (const v of arr(result.Vulnerabilities).map(obj)) {
        if (String(v.Status ?? "").toLowerCase() === "not_affected") {
          b.skip("not affected");
          continue;
        }
        const vid = str(v.VulnerabilityID) ?? "UNKNOWN";
        const pkg = str(v.PkgName) ?? "";
        push(`trivy:${vid}:${pkg}:${target}`, {
          id: "",
          resource_id: subject,
          severity: normaliseSeverity(v.Severity, "INFO"),
          title: str(v.Title) ?? `${vid} in ${pkg}`,
          description: str(v.Description) ?? "",
          evidence: `${target}: ${pkg} ${str(v.InstalledVersion) ?? ""}`.trim(),
          remediation: str(v.FixedVersion)
            ? `Upgrade ${pkg} to ${str(v.FixedVersion)}`
            : "No fixed version yet",
          source_tool: "trivy",
          source_finding_id: vid,
          compliance_frameworks: vid.startsWith("CVE-") ? ["CVE"] : [],
          cvss_score: cvss(v),
          detected_at: when,
        });
      }
      for (const m of arr(result.Misconfigurations).map(obj)) {
        if (String(m.Status ?? "FAIL").toUpperCase() !== "FAIL") {
          b.skip("passed check");
          continue;
        }
        const mid = str(m.AVDID) ?? str(m.ID) ?? "MISCONFIG";
        const cause = obj(m.CauseMetadata);
        push(`trivy:${mid}:${target}:${str(cause.Resource) ?? ""}`, {
          id: "",
          resource_id: str(cause.Resource) ?? target,
          severity: normaliseSeverity(m.Severity, "MEDIUM"),
          title: str(m.Title) ?? mid,
          description: str(m.Description) ?? "",
          evidence: str(m.Message) ?? target,
          remediation: str(m.Resolution) ?? "",
          source_tool: "trivy",
          source_finding_id: str(m.ID) ?? mid,
          detected_at: when,
        });
      }
      for (const s of arr(result.Secrets).map(obj)) {
        const rule = str(s.RuleID) ?? "secret";
        push(`trivy:${rule}:${target}:${String(s.StartLine ?? "")}`, {
          id: "",
          resource_id: subject,
          severity: normaliseSeverity(s.Severity, "HIGH"),
          title: str(s.Title) ?? rule,
          description: `${str(s.Category) ?? "Secret"} found in ${target}`,
          // The match itself is a secret: keep only where it is.
          evidence: `${target}:${String(s.StartLine ?? "?")}`,
          remediation: "Remove the secret from the artifact and rotate it.",
          source_tool: "trivy",
          source_finding_id: rule,
          detected_at: when,
        });
      }
    }
    return b.finish();
  },
});
