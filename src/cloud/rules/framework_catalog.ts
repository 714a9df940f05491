/**
 * The compliance frameworks the reference rulesets name, each listed with
 * what our rule set can evaluate for it: CIS frameworks with the CIS 3.0
 * control ids our rules map to, the others with the rules whose coarse tags
 * name the framework's family (their control ids are not mapped).
 *
 * @module
 */

import { frameworkProviders, RULESET_FRAMEWORKS } from "../compliance/frameworks.ts";
import type { CloudProvider } from "../model/enums.ts";
import { cisControlsOf } from "./cis_mapping.ts";
import { RULES } from "./rule_table.ts";

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

// The one provider a framework is specific to, or null for provider-neutral ones.
function providerOf(name: string): CloudProvider | null {
  const providers = frameworkProviders(name);
  return providers.length === 1 ? providers[0] as CloudProvider : null;
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
  return RULESET_FRAMEWORKS.map((framework) => {
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
