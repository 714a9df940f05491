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
 * Reads a `--dataset [KIND:][NAME=]PATH` value: a leading lower-case word
 * and colon (`terraform-plan:`, not a drive letter or a URL scheme's `//`)
 * names the input kind; the text before the first `=` is the name when it
 * follows the naming rule and a path follows; otherwise the rest is the path.
 *
 * @example
 * ```ts
 * import { parseDatasetSpec } from "./naming.ts";
 * parseDatasetSpec("prod=./inventory"); // { name: "prod", path: "./inventory" }
 * parseDatasetSpec("./a=b.json"); // { path: "./a=b.json" }
 * parseDatasetSpec("trivy:scan=./t.json"); // { kind: "trivy", name: "scan", path: "./t.json" }
 * ```
 */
export function parseDatasetSpec(spec: string): { kind?: string; name?: string; path: string } {
  const kinded = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z][a-z0-9]{2,}):(?!\/\/)(.+)$/.exec(spec);
  const kind = kinded ? { kind: kinded[1]! } : {};
  const rest = kinded ? kinded[2]! : spec;
  const eq = rest.indexOf("=");
  if (eq > 0 && eq < rest.length - 1 && DATASET_NAME_PATTERN.test(rest.slice(0, eq))) {
    return { ...kind, name: rest.slice(0, eq), path: rest.slice(eq + 1) };
  }
  return { ...kind, path: rest };
}
