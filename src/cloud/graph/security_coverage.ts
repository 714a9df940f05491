/**
 * `security_coverage`: which security services are enabled per account and
 * region, the gaps, workloads no vulnerability scanner monitors, and
 * internet-facing entry points without a WAF.
 *
 * @module
 */

import type { DatasetView } from "../model/view.ts";
import { compareCodePoints } from "../model/order.ts";

/** A workload no enabled vulnerability scanner monitors. */
export interface UnscannedWorkload {
  name: string;
  arn: string | null;
  type: string;
  account_id: string | null;
  region: string;
}

/** An internet-facing entry point no PROTECTS edge covers. */
export interface UnprotectedEntry {
  name: string;
  arn: string | null;
  type: string;
  account_id: string | null;
}

/** One bounded list of the coverage report. */
export interface BoundedList<T> {
  total: number;
  returned: number;
  truncated: boolean;
  items: T[];
}

/** The result of {@link securityCoverage}. */
export interface SecurityCoverageResult {
  /** account → region → service → enabled anywhere there. */
  services_by_account_region: Record<string, Record<string, Record<string, boolean>>>;
  /** `"<account>/<region>: <service>"` for each disabled service. */
  gaps: BoundedList<string>;
  workloads_without_vulnerability_scanning: BoundedList<UnscannedWorkload>;
  internet_facing_without_waf: BoundedList<UnprotectedEntry>;
}

const SCANNABLE = new Set(["EC2", "CONTAINER_REGISTRY", "LAMBDA_FUNCTION"]);
const PROTECTABLE = new Set(["LOAD_BALANCER", "API_GATEWAY", "CLOUDFRONT"]);

function bounded<T>(items: readonly T[], limit: number): BoundedList<T> {
  return {
    total: items.length,
    returned: Math.min(limit, items.length),
    truncated: items.length > limit,
    items: items.slice(0, limit),
  };
}

/**
 * Security services by account and region (from assets whose metadata names
 * a `security_service`, enabled when any such asset says `enabled`), each
 * list bounded to `limit` items.
 */
export function securityCoverage(
  view: DatasetView,
  options: { limit?: number } = {},
): SecurityCoverageResult {
  const limit = options.limit ?? 50;
  const { assets, edges } = view.records;
  const matrix: Record<string, Record<string, Record<string, boolean>>> = {};
  for (const a of assets) {
    const service = a.metadata["security_service"];
    if (!service) continue;
    const account = a.account_id || "unknown";
    const regions = matrix[account] ??= {};
    const cell = regions[a.region] ??= {};
    const name = String(service);
    cell[name] = (cell[name] ?? false) || Boolean(a.metadata["enabled"]);
  }
  const scanners = new Set(
    assets.filter((a) => a.asset_type === "VULNERABILITY_SCANNER" && a.metadata["enabled"])
      .map((a) => a.id),
  );
  const scanned = new Set(
    edges.filter((e) => e.edge_type === "MONITORS" && scanners.has(e.source_id)).map((e) =>
      e.target_id
    ),
  );
  const unscanned = assets.filter((a) => SCANNABLE.has(a.asset_type) && !scanned.has(a.id)).map((
    a,
  ) => ({
    name: a.name,
    arn: a.arn,
    type: a.asset_type,
    account_id: a.account_id,
    region: a.region,
  }));
  const protectedIds = new Set(
    edges.filter((e) => e.edge_type === "PROTECTS").map((e) => e.target_id),
  );
  const unprotected = assets.filter((a) =>
    PROTECTABLE.has(a.asset_type) && a.is_internet_exposed && !protectedIds.has(a.id)
  ).map((a) => ({ name: a.name, arn: a.arn, type: a.asset_type, account_id: a.account_id }));
  const gaps: string[] = [];
  for (const [account, regions] of Object.entries(matrix)) {
    for (const [region, services] of Object.entries(regions)) {
      for (const [service, on] of Object.entries(services)) {
        if (!on) gaps.push(`${account}/${region}: ${service}`);
      }
    }
  }
  gaps.sort(compareCodePoints);
  return {
    services_by_account_region: matrix,
    gaps: bounded(gaps, limit),
    workloads_without_vulnerability_scanning: bounded(unscanned, limit),
    internet_facing_without_waf: bounded(unprotected, limit),
  };
}
