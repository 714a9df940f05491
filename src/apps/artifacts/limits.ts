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

/** Defaults of the traversal limits. */
export const DEFAULT_LIMITS: TraversalLimits = {
  max_entries: 10_000,
  max_total_bytes: 1024 ** 3,
  max_entry_bytes: 256 * 1024 ** 2,
  max_compression_ratio: 1_000,
  max_depth: 20,
  max_path_bytes: 4_096,
};

/** Upper bounds of the traversal limits. */
export const LIMIT_BOUNDS: TraversalLimits = {
  max_entries: 1_000_000,
  max_total_bytes: 64 * 1024 ** 3,
  max_entry_bytes: 4 * 1024 ** 3,
  max_compression_ratio: 100_000,
  max_depth: 100,
  max_path_bytes: 65_535,
};
