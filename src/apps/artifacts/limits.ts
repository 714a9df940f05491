/**
 * The traversal limits of one artifact scan: their defaults and the upper
 * bounds a client may ask for. Kept apart from the content-graph schemas so
 * the command line can check the operator's ceilings without loading them.
 *
 * @module
 */

/** Traversal limits of one scan. */
export interface TraversalLimits {
  max_entries: number;
  max_total_bytes: number;
  max_entry_bytes: number;
  max_compression_ratio: number;
  max_depth: number;
  max_path_bytes: number;
}

/** One traversal limit: its default, the most a client may ask for, and the operator's ceiling. */
interface LimitRow {
  default: number;
  bound: number;
  /** The operator's ceiling when none is set: enough for large packages, not for bombs. */
  ceiling: number;
}

const LIMIT_ROWS: Readonly<Record<keyof TraversalLimits, LimitRow>> = {
  max_entries: { default: 10_000, bound: 1_000_000, ceiling: 100_000 },
  max_total_bytes: { default: 1024 ** 3, bound: 64 * 1024 ** 3, ceiling: 16 * 1024 ** 3 },
  max_entry_bytes: { default: 256 * 1024 ** 2, bound: 4 * 1024 ** 3, ceiling: 512 * 1024 ** 2 },
  max_compression_ratio: { default: 1_000, bound: 100_000, ceiling: 10_000 },
  max_depth: { default: 20, bound: 100, ceiling: 32 },
  max_path_bytes: { default: 4_096, bound: 65_535, ceiling: 16_384 },
};

/** The names of the traversal limits, in their usual order. */
export const LIMIT_NAMES: readonly (keyof TraversalLimits)[] = Object.keys(
  LIMIT_ROWS,
) as (keyof TraversalLimits)[];

/** One column of the limits table, as a fresh set of limits. */
export function limitsColumn(column: keyof LimitRow): TraversalLimits {
  const limits = {} as TraversalLimits;
  for (const name of LIMIT_NAMES) limits[name] = LIMIT_ROWS[name][column];
  return limits;
}

/** Defaults of the traversal limits. */
export const DEFAULT_LIMITS: TraversalLimits = limitsColumn("default");

/** Upper bounds of the traversal limits. */
export const LIMIT_BOUNDS: TraversalLimits = limitsColumn("bound");
