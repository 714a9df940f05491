/**
 * The compliance frameworks the reference rulesets name, each listed with
 * what our rule set can evaluate for it: CIS frameworks with the CIS 3.0
 * control ids our rules map to, the others with the rules whose coarse tags
 * name the framework's family (their control ids are not mapped).
 *
 * @module
 */

import type { CloudProvider } from "../model/enums.ts";
import { cisControlsOf } from "./cis_mapping.ts";
import { RULES } from "./rule_table.ts";

/** The ruleset framework names of the reference (28). */
export const FRAMEWORK_NAMES: readonly string[] = [
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

/** One framework and what we evaluate of it. */
export interface FrameworkCoverage {
  framework: string;
  /** The provider the framework is specific to, or null for provider-neutral ones. */
  provider: CloudProvider | null;
  /** Control ids our rules evaluate (CIS only). */
  controls: string[];
  /** Rule ids that bear on the framework. */
  rules: string[];
}

function providerOf(name: string): CloudProvider | null {
  if (/-AWS$/.test(name)) return "AWS";
  if (/-AZURE$/.test(name)) return "AZURE";
  if (/-GCP$/.test(name)) return "GCP";
  return null;
}

function familyOf(name: string): string {
  const n = name.toUpperCase();
  if (n.startsWith("CIS")) return "CIS";
  if (n.startsWith("NIST-800-53")) return "NIST-800-53";
  if (n.startsWith("NIST-CSF")) return "NIST-CSF";
  if (n.startsWith("PCI")) return "PCI-DSS";
  if (n.startsWith("ISO")) return "ISO-27001";
  if (n.startsWith("MITRE")) return "MITRE-ATTACK";
  if (n.startsWith("SOC2")) return "SOC2";
  if (n.startsWith("HIPAA")) return "HIPAA";
  if (n.startsWith("GDPR")) return "GDPR";
  return n;
}

/** Every reference framework with the controls and rules we can evaluate for it. */
export function frameworkCatalog(): FrameworkCoverage[] {
  return FRAMEWORK_NAMES.map((framework) => {
    const provider = providerOf(framework);
    const family = familyOf(framework);
    const rules = RULES.filter((r) =>
      (provider === null || r.providers.includes(provider)) &&
      (family === "CIS"
        ? cisControlsOf(r.id).some((c) => c.framework === framework)
        : r.compliance.includes(family))
    );
    const controls = family === "CIS"
      ? [
        ...new Set(rules.flatMap((r) =>
          cisControlsOf(r.id).filter((c) => c.framework === framework).map((c) => c.control)
        )),
      ]
        .sort((a, b) =>
          a.localeCompare(b, "en", { numeric: true })
        )
      : [];
    return { framework, provider, controls, rules: rules.map((r) => r.id) };
  });
}
