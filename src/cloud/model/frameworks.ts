/**
 * The compliance frameworks a dataset names: those of its compliance results
 * and those its findings are tagged with. One source for the dataset summary
 * and the compliance tools, so they list the same frameworks.
 *
 * @module
 */

import { compareCodePoints } from "./order.ts";
import type { DatasetRecords } from "./records.ts";

/** Framework names of the records: compliance results ∪ finding tags, sorted by code point. */
export function recordFrameworks(
  records: Pick<DatasetRecords, "compliance" | "findings">,
): string[] {
  const names = new Set<string>();
  for (const r of records.compliance) names.add(r.framework);
  for (const f of records.findings) for (const n of f.compliance_frameworks) names.add(n);
  return [...names].sort(compareCodePoints);
}
