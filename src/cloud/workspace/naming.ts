/**
 * Dataset names (§4.3): the naming rule, default names from paths, and
 * unique-ifying (`-2`, `-3`, …).
 *
 * @module
 */

import { DatasetNameError } from "../model/errors.ts";

/** The naming rule. */
export const DATASET_NAME_PATTERN: RegExp = /^[A-Za-z0-9_.-]{1,64}$/;

/** Throws {@linkcode DatasetNameError} (data `{value}`) unless the name follows the rule. */
export function checkDatasetName(name: string): string {
  if (typeof name !== "string" || !DATASET_NAME_PATTERN.test(name)) {
    throw new DatasetNameError(
      "Dataset names are 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'.",
      { value: name },
    );
  }
  return name;
}

/**
 * Turns any text into a name: runs of disallowed characters become `-`,
 * leading and trailing `-` go, at most 48 characters, `dataset` when empty.
 */
export function sanitizeName(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48)
    .replace(/-+$/, "");
  return cleaned === "" ? "dataset" : cleaned;
}

/** `base` when free, else `base-2`, `base-3`, … */
export function uniqueName(base: string, taken: (name: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2;; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}

/**
 * Reads a `--dataset [NAME=]PATH` value: the text before the first `=` is
 * the name when it follows the naming rule and a path follows; otherwise the
 * whole value is the path.
 *
 * @example
 * ```ts
 * import { parseDatasetSpec } from "./naming.ts";
 * parseDatasetSpec("prod=./inventory"); // { name: "prod", path: "./inventory" }
 * parseDatasetSpec("./a=b.json"); // { path: "./a=b.json" }
 * ```
 */
export function parseDatasetSpec(spec: string): { name?: string; path: string } {
  const eq = spec.indexOf("=");
  if (eq > 0 && eq < spec.length - 1 && DATASET_NAME_PATTERN.test(spec.slice(0, eq))) {
    return { name: spec.slice(0, eq), path: spec.slice(eq + 1) };
  }
  return { path: spec };
}
