/**
 * The compliance framework names of the shipped rulesets: what the
 * framework completer offers when a dataset carries no framework of its own,
 * and what `list_frameworks` lists.
 *
 * @module
 */

/** The 28 ruleset framework names, in the reference's order. */
export const RULESET_FRAMEWORKS: readonly string[] = [
  "AWS-Foundational-Security-Best-Practices-AWS",
  "CIS-AWS",
  "CIS-AZURE",
  "CIS-GCP",
  "GDPR",
  "GDPR-AWS",
  "HIPAA",
  "HIPAA-AWS",
  "HIPAA-AZURE",
  "HIPAA-GCP",
  "ISO-27001",
  "ISO27001-AWS",
  "ISO27001-AZURE",
  "ISO27001-GCP",
  "MITRE-ATTACK-AWS",
  "MITRE-ATTACK-AZURE",
  "MITRE-ATTACK-GCP",
  "NIST-800-53",
  "NIST-800-53-Revision-5-AWS",
  "NIST-CSF-AWS",
  "PCI-AWS",
  "PCI-AZURE",
  "PCI-DSS",
  "PCI-GCP",
  "SOC2",
  "SOC2-AWS",
  "SOC2-AZURE",
  "SOC2-GCP",
];

/** The providers a ruleset framework covers, from its name (none named → all three). */
export function frameworkProviders(framework: string): string[] {
  const upper = framework.toUpperCase();
  const named = ["AWS", "AZURE", "GCP"].filter((p) => upper.endsWith(`-${p}`));
  return named.length > 0 ? named : ["AWS", "AZURE", "GCP"];
}

/** A ruleset framework as `list_frameworks` lists it. */
export interface RulesetFramework {
  /** Framework name. */
  framework: string;
  /** Providers it covers. */
  providers: string[];
}

/** The ruleset frameworks, optionally only those covering a provider (case-insensitive). */
export function listRulesetFrameworks(provider: string = ""): RulesetFramework[] {
  const wanted = provider.trim().toUpperCase();
  return RULESET_FRAMEWORKS
    .map((framework) => ({ framework, providers: frameworkProviders(framework) }))
    .filter((f) => wanted === "" || f.providers.includes(wanted));
}
