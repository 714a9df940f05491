/**
 * Every importer of this module, for the dispatcher that detects kinds.
 *
 * @module
 */

import type { ImporterEntry } from "./entry.ts";
import { awsApiImporter } from "./aws_api_dump.ts";
import { checkovImporter } from "./checkov_results.ts";
import { iamAuthorizationImporter } from "./iam_authorization.ts";
import { prowlerAsffImporter } from "./prowler_asff.ts";
import { prowlerOcsfImporter } from "./prowler_ocsf.ts";
import { prowlerImporter } from "./prowler_report.ts";
import { scoutSuiteImporter } from "./scoutsuite_results.ts";
import { terraformPlanImporter } from "./terraform_plan.ts";
import { terraformStateImporter } from "./terraform_state.ts";
import { trivyImporter } from "./trivy_report.ts";

/** The importers, most specific sniff first. */
export const IMPORTERS: readonly ImporterEntry[] = [
  terraformStateImporter,
  terraformPlanImporter,
  iamAuthorizationImporter,
  awsApiImporter,
  trivyImporter,
  checkovImporter,
  prowlerAsffImporter,
  prowlerOcsfImporter,
  scoutSuiteImporter,
  // Forced kinds only (no sniff): either Prowler format by content.
  prowlerImporter,
];

/** An importer by kind. */
export function importerFor(kind: string): ImporterEntry | undefined {
  return IMPORTERS.find((i) => i.kind === kind);
}
