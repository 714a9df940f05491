/**
 * Stable pagination (§4.9): `limit` + `cursor`, where a cursor is
 * `c<offset>.<12 hex>` and the hex fingerprints the dataset (name, version,
 * load instance) and the filter arguments, so a cursor from other filters or
 * an older version is refused as stale rather than silently misread.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { InvalidArgumentError, InvalidCursorError, StaleCursorError } from "./errors.ts";
import type { DatasetView } from "./view.ts";

/** The cursor syntax. */
export const CURSOR_PATTERN: RegExp = /^c\d{1,9}\.[0-9a-f]{12}$/;
/** Default page size. */
export const DEFAULT_LIMIT = 50;
/** Largest page size. */
export const MAX_LIMIT = 500;

/** One page of a list. */
export interface Page<T> {
  /** Items matching the filters, over all pages. */
  total: number;
  /** Index of the first item of this page. */
  offset: number;
  /** Items on this page. */
  returned: number;
  /** The cursor of the next page, or null on the last one. */
  next_cursor: string | null;
  /** True when more items follow this page. */
  truncated: boolean;
  /** The items, at most the limit. */
  items: T[];
}

/** What a fingerprint depends on: the dataset's identity, if any, and the filters. */
export type CursorScope = Pick<DatasetView, "name" | "version" | "instanceId"> | null;

function canonical(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}

/** The 12-hex fingerprint of a dataset state and a set of filters (never `limit`). */
export function cursorFingerprint(scope: CursorScope, filters: Record<string, unknown>): string {
  const basis = canonical({
    dataset: scope?.name ?? null,
    version: scope?.version ?? null,
    instance: scope?.instanceId ?? null,
    filters,
  });
  return createHash("sha256").update(basis).digest("hex").slice(0, 12);
}

/** Writes a cursor. */
export function encodeCursor(offset: number, fingerprint: string): string {
  return `c${offset}.${fingerprint}`;
}

/**
 * Reads a cursor against the expected fingerprint: empty → offset 0;
 * malformed → {@linkcode InvalidCursorError}; issued for another state →
 * {@linkcode StaleCursorError}.
 */
export function decodeCursor(cursor: string | null | undefined, fingerprint: string): number {
  if (cursor === undefined || cursor === null || cursor === "") return 0;
  if (typeof cursor !== "string" || !CURSOR_PATTERN.test(cursor)) {
    throw new InvalidCursorError(
      "Invalid cursor: pass the next_cursor of an earlier page unchanged, or omit it to start " +
        "from the first page.",
      { value: cursor },
    );
  }
  const dot = cursor.indexOf(".");
  if (cursor.slice(dot + 1) !== fingerprint) {
    throw new StaleCursorError(
      "Stale cursor: it was issued for other filters or an earlier state of the dataset; " +
        "repeat the call without a cursor.",
      { value: cursor },
    );
  }
  return Number(cursor.slice(1, dot));
}

/** Checks a page size: an integer from 1 to {@linkcode MAX_LIMIT}. */
export function checkLimit(limit: number | undefined, max: number = MAX_LIMIT): number {
  const value = limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new InvalidArgumentError(`The limit must be an integer from 1 to ${max}.`, {
      value: limit,
    });
  }
  return value;
}

/** Options of {@linkcode paginate}. */
export interface PaginateOptions<T = unknown, R = T> {
  /** Page size, 1..500. @default 50 */
  limit?: number;
  /** The cursor of the page to read; empty for the first. */
  cursor?: string | null;
  /** The dataset the list came from (null for lists not tied to a dataset). */
  scope: CursorScope;
  /** The filter arguments that shaped the list (not `limit`, not `cursor`). */
  filters: Record<string, unknown>;
  /**
   * What an item becomes on the wire (the raw item when left out): the page
   * holds these, and stops before {@linkcode PAGE_CHAR_BUDGET} characters of them.
   */
  render?: (item: T) => R;
}

/**
 * Most characters of JSON the items of one page may take. Output policies
 * cap a whole result (120,000 characters under `standard`, 100,000 under
 * `strict`) and shorten lists that exceed it; a page shortened after its
 * cursor was made would skip the items it lost, so pages stop below the
 * smallest built-in cap instead, and the cursor continues after the last
 * item sent.
 */
export const PAGE_CHAR_BUDGET = 80_000;

/**
 * Cuts one page out of a fully computed list.
 *
 * @example
 * ```ts
 * import { paginate } from "./cursors.ts";
 * const page = paginate([1, 2, 3], { limit: 2, scope: null, filters: {} });
 * // page.items: [1, 2]; page.next_cursor: "c2.<12 hex>"
 * ```
 */
export function paginate<T, R = T>(
  items: readonly T[],
  options: PaginateOptions<T, R>,
): Page<R> {
  const limit = checkLimit(options.limit);
  const fingerprint = cursorFingerprint(options.scope, options.filters);
  const offset = decodeCursor(options.cursor, fingerprint);
  const render = options.render ?? ((item: T) => item as unknown as R);
  const slice: R[] = [];
  let chars = 0;
  for (const item of items.slice(offset, offset + limit)) {
    const shown = render(item);
    chars += (JSON.stringify(shown)?.length ?? 4) + 1;
    // Always at least one item, so a cursor moves on even past a huge one.
    if (chars > PAGE_CHAR_BUDGET && slice.length > 0) break;
    slice.push(shown);
  }
  const end = offset + slice.length;
  const more = end < items.length;
  return {
    total: items.length,
    offset,
    returned: slice.length,
    next_cursor: more ? encodeCursor(end, fingerprint) : null,
    truncated: more,
    items: slice,
  };
}
