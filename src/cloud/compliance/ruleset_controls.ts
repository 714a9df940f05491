/**
 * What can be said about the controls of the shipped ruleset frameworks.
 * Only the 28 framework names are carried here, not their control
 * definitions, so the answer names the matching frameworks and says plainly
 * that their controls are not available, instead of inventing any.
 *
 * @module
 */

import { UnknownFrameworkError } from "../model/errors.ts";
import { frameworkProviders, RULESET_FRAMEWORKS } from "./frameworks.ts";

/** Why ruleset controls cannot be listed. */
export const RULESET_CONTROLS_NOTE =
  "Only the names of the 28 ruleset frameworks are available here, not their control " +
  "definitions, so no ruleset controls can be listed. The controls evaluated in a dataset are " +
  "listed with source dataset.";

/**
 * Ruleset framework names matching `name`: the exact one (case-insensitive)
 * if any, else every name containing it (`CIS` gives the three CIS ones).
 */
export function matchRulesetFrameworks(name: string): string[] {
  const lower = name.trim().toLowerCase();
  if (lower === "") return [];
  const exact = RULESET_FRAMEWORKS.filter((n) => n.toLowerCase() === lower);
  if (exact.length > 0) return exact;
  return RULESET_FRAMEWORKS.filter((n) => n.toLowerCase().includes(lower));
}

/** The answer about one ruleset framework's controls. */
export interface RulesetControlsAnswer {
  /** The ruleset frameworks the name matched, with the providers each covers. */
  frameworks: { framework: string; providers: string[] }[];
  /** Always false: the control definitions are not shipped. */
  controls_available: false;
  /** Why the control list is empty. */
  note: string;
}

/**
 * The ruleset frameworks matching `framework` and the admission that their
 * controls are unknown here; no match is {@linkcode UnknownFrameworkError}
 * with the 28 names in `data.valid`.
 */
export function rulesetControls(framework: string): RulesetControlsAnswer {
  const names = matchRulesetFrameworks(framework);
  if (names.length === 0) {
    throw new UnknownFrameworkError(
      "No ruleset framework has that name; the names are in data.valid.",
      { value: framework, valid: [...RULESET_FRAMEWORKS] },
    );
  }
  return {
    frameworks: names.map((n) => ({ framework: n, providers: frameworkProviders(n) })),
    controls_available: false,
    note: RULESET_CONTROLS_NOTE,
  };
}
