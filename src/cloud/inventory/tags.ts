/**
 * Tag statistics (`list_tags`): which tag keys assets carry, how many
 * assets carry each, and their commonest values.
 *
 * @module
 */

import { compareCodePoints } from "../model/order.ts";
import type { DatasetView } from "../model/view.ts";

/** Values shown per key when listing every key. */
export const VALUES_PER_KEY = 5;

/** One tag key. */
export interface TagRow {
  key: string;
  /** Assets carrying the key. */
  assets: number;
  distinct_values: number;
  /** Commonest values first (ties by value). */
  top_values: { value: string; count: number }[];
}

/** The result of {@linkcode listTags}. */
export interface TagListing {
  total_keys: number;
  keys: TagRow[];
  truncated: boolean;
}

/**
 * Without `key`: the `top` most used keys (ties by key) with their five
 * commonest values. With `key`: that key alone with its `top` commonest
 * values (no rows when no asset carries it).
 */
export function listTags(
  view: DatasetView,
  options: { key?: string; top?: number } = {},
): TagListing {
  const top = options.top ?? 30;
  const stats = new Map<string, Map<string, number>>();
  const carriers = new Map<string, number>();
  for (const asset of view.records.assets) {
    for (const [key, value] of Object.entries(asset.tags)) {
      if (options.key && key !== options.key) continue;
      let values = stats.get(key);
      if (!values) {
        values = new Map();
        stats.set(key, values);
      }
      values.set(value, (values.get(value) ?? 0) + 1);
      carriers.set(key, (carriers.get(key) ?? 0) + 1);
    }
  }
  const perKey = options.key ? top : VALUES_PER_KEY;
  const rows: TagRow[] = [...stats].map(([key, values]) => ({
    key,
    assets: carriers.get(key)!,
    distinct_values: values.size,
    top_values: [...values].map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || compareCodePoints(a.value, b.value))
      .slice(0, perKey),
  })).sort((a, b) => b.assets - a.assets || compareCodePoints(a.key, b.key));
  const keys = options.key ? rows : rows.slice(0, top);
  return {
    total_keys: rows.length,
    keys,
    truncated: options.key
      ? rows.some((r) => r.distinct_values > r.top_values.length)
      : rows.length > top,
  };
}
