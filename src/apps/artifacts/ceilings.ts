/**
 * The operator's ceilings over the traversal limits a client may ask for.
 * A client chooses its limits per call (bounded by the schema's
 * {@linkcode LIMIT_BOUNDS}); the operator caps each one with a flag, and a
 * request above a ceiling is clamped to it, with a note saying so in the
 * result. Opening a directory (which reads every file to identify it) is
 * bounded by the same ceilings.
 *
 * @module
 */

import { LIMIT_BOUNDS, LIMIT_NAMES, limitsColumn, type TraversalLimits } from "./limits.ts";

/** The ceilings when the operator sets none: enough for large packages, not for bombs. */
export const DEFAULT_CEILINGS: Readonly<TraversalLimits> = Object.freeze(limitsColumn("ceiling"));

/** The command-line flag that sets each ceiling (`max_entries`: `artifact-max-entries`). */
export const CEILING_FLAGS: Readonly<Record<keyof TraversalLimits, string>> = Object.freeze(
  Object.fromEntries(
    LIMIT_NAMES.map((name) => [name, `artifact-${name.replaceAll("_", "-")}`]),
  ) as Record<keyof TraversalLimits, string>,
);

/** A ceiling flag's value that is not accepted. */
export class CeilingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CeilingError";
  }
}

/**
 * The ceilings from flag values (`--artifact-max-entries 5000` and the
 * others; each a whole number, at least 1 (0 allowed for max_depth), at most
 * the schema bound), over {@linkcode DEFAULT_CEILINGS}.
 */
export function ceilingsFrom(values: Readonly<Record<string, unknown>>): TraversalLimits {
  const ceilings: TraversalLimits = { ...DEFAULT_CEILINGS };
  for (const name of LIMIT_NAMES) {
    const flag = CEILING_FLAGS[name];
    const raw = values[flag];
    if (raw === undefined) continue;
    const text = String(raw).trim();
    const min = name === "max_depth" ? 0 : 1;
    const value = /^[0-9]{1,12}$/.test(text) ? Number(text) : NaN;
    if (!(value >= min && value <= LIMIT_BOUNDS[name])) {
      throw new CeilingError(
        `--${flag} expects a whole number from ${min} to ${LIMIT_BOUNDS[name]}; got ${
          JSON.stringify(text.slice(0, 40))
        }`,
      );
    }
    ceilings[name] = value;
  }
  return ceilings;
}

/**
 * The limits a scan may use: each requested limit, clamped to its ceiling,
 * and a note for every one that was clamped (naming the flag that raises it).
 */
export function capLimits(
  requested: Readonly<TraversalLimits>,
  ceilings: Readonly<TraversalLimits>,
): { limits: TraversalLimits; notes: string[] } {
  const limits = { ...requested };
  const notes: string[] = [];
  for (const name of LIMIT_NAMES) {
    if (requested[name] > ceilings[name]) {
      limits[name] = ceilings[name];
      notes.push(
        `${name} ${requested[name]} was capped at the operator's ceiling ${ceilings[name]} (--${
          CEILING_FLAGS[name]
        }).`,
      );
    }
  }
  return { limits, notes };
}

/** The help lines of the ceiling flags. */
export const CEILINGS_HELP =
  `Artifact limits (operator ceilings; a client asking for more is capped, with a note):
  --artifact-max-entries N           most entries walked (default ${DEFAULT_CEILINGS.max_entries}; also bounds
                                     opening a directory)
  --artifact-max-total-bytes N       most bytes read in one scan (default ${DEFAULT_CEILINGS.max_total_bytes})
  --artifact-max-entry-bytes N       largest member hashed, decompressed or held in memory
                                     (default ${DEFAULT_CEILINGS.max_entry_bytes})
  --artifact-max-compression-ratio N largest decompression ratio (default ${DEFAULT_CEILINGS.max_compression_ratio})
  --artifact-max-depth N             deepest archive nesting (default ${DEFAULT_CEILINGS.max_depth})
  --artifact-max-path-bytes N        longest member path (default ${DEFAULT_CEILINGS.max_path_bytes})
`;
