/**
 * Which CIS 3.0 controls each of our rules evaluates, per framework. Derived
 * from the public control-to-check mapping facts of the CIS 3.0 benchmarks
 * for AWS, Azure and GCP (a control is listed for a rule when one of the
 * control's checks is among the rule's `prowler_checks`); a test re-derives
 * it from those facts and compares.
 *
 * @module
 */

/** The CIS frameworks our rules report on. */
export const CIS_FRAMEWORKS = ["CIS-AWS", "CIS-AZURE", "CIS-GCP"] as const;

/** A CIS framework name. */
export type CisFramework = (typeof CIS_FRAMEWORKS)[number];

/** Rule id → framework → control ids. */
export const RULE_CIS_CONTROLS: Readonly<
  Record<string, Partial<Record<CisFramework, readonly string[]>>>
> = {
  "f-ssh-open": { "CIS-AWS": ["5.2", "5.3"], "CIS-AZURE": ["7.2"], "CIS-GCP": ["3.6"] },
  "f-rdp-open": { "CIS-AWS": ["5.2", "5.3"], "CIS-AZURE": ["7.1"], "CIS-GCP": ["3.7"] },
  "f-all-ports-open": { "CIS-AWS": ["5.2", "5.3"] },
  "f-nacl-open": { "CIS-AWS": ["5.1"] },
  "f-default-sg-traffic": { "CIS-AWS": ["5.4"] },
  "f-bucket-public": { "CIS-GCP": ["5.1"] },
  "f-bucket-no-public-access-block": { "CIS-AWS": ["2.1.4"] },
  "f-db-public": { "CIS-AWS": ["2.3.3"], "CIS-GCP": ["6.5", "6.6"] },
  "f-db-unencrypted": { "CIS-AWS": ["2.3.1"] },
  "f-volume-unencrypted": { "CIS-AWS": ["2.2.1"] },
  "f-iam-wildcard-admin": { "CIS-AWS": ["1.16"] },
  "f-root-access-keys": { "CIS-AWS": ["1.4"] },
  "f-root-mfa-disabled": { "CIS-AWS": ["1.5"] },
  "f-user-console-no-mfa": { "CIS-AWS": ["1.10"] },
  "f-iam-user-direct-policy": { "CIS-AWS": ["1.15"] },
  "f-cloudtrail-not-multi-region": { "CIS-AWS": ["3.1"] },
  "f-cloudtrail-log-validation-disabled": { "CIS-AWS": ["3.2"] },
  "f-kms-rotation-disabled": { "CIS-AWS": ["3.6"] },
  "f-vpc-flow-logs-disabled": { "CIS-AWS": ["3.7"] },
  "f-imdsv2-not-required": { "CIS-AWS": ["5.6"] },
};

/** The provider a CIS framework covers. */
export function cisProvider(framework: CisFramework): "AWS" | "AZURE" | "GCP" {
  return framework === "CIS-AWS" ? "AWS" : framework === "CIS-AZURE" ? "AZURE" : "GCP";
}

/** The CIS controls (framework, control id) a rule maps to. */
export function cisControlsOf(ruleId: string): { framework: CisFramework; control: string }[] {
  const entry = RULE_CIS_CONTROLS[ruleId] ?? {};
  return CIS_FRAMEWORKS.flatMap((framework) =>
    (entry[framework] ?? []).map((control) => ({ framework, control }))
  );
}
