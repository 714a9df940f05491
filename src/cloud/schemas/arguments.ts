/**
 * Argument declarations several cloud tools share, each a builder whose
 * parameters are the only things that differ between the tools (a noun, a
 * bound, a verb). Their values are read by argument_parsing.ts.
 *
 * @module
 */

import { z } from "zod";

/**
 * A count bound: a whole number from 1 to `max`, `fallback` when left out,
 * described as "Most <what> (1 to <max>)." (e.g. `mostArgument("paths
 * returned", 100, 20)`).
 */
export function mostArgument(
  what: string,
  max: number,
  fallback: number,
): z.ZodDefault<z.ZodNumber> {
  return z.number().int().min(1).max(max).default(fallback).describe(
    `Most ${what} (1 to ${max}).`,
  );
}

/**
 * An optional graph node: an asset reference, a placeholder id (and, where the
 * tool says so, the internet) of at most 2048 characters; empty means none.
 */
export function nodeFilterArgument(describe: string): z.ZodDefault<z.ZodString> {
  return z.string().max(2048).default("").describe(describe);
}

/**
 * Up to 500 asset references picking the assets a tool works on, empty for
 * every asset; `verb` says what is done with them ("export", "map").
 */
export function assetRefsArgument(verb: string): z.ZodDefault<z.ZodArray<z.ZodString>> {
  return z.array(z.string().min(1).max(2048)).max(500).default([]).describe(
    `Asset references (id, ARN, name…) to ${verb}; empty ${verb}s every asset.`,
  );
}

/** A list of up to `max` asset or edge type names (each at most 64 characters), empty for all. */
export function typeNamesArgument(
  max: number,
  describe: string,
): z.ZodDefault<z.ZodArray<z.ZodString>> {
  return z.array(z.string().max(64)).max(max).default([]).describe(describe);
}

/**
 * A framework name or part of one, empty for every framework; `verb` says
 * what the tool then does with every framework ("covers", "summarises").
 */
export function frameworkFilterArgument(verb: string): z.ZodDefault<z.ZodString> {
  return z.string().max(200).default("").describe(
    `A framework name or part of one (any case); empty ${verb} every framework.`,
  );
}

/** A severity floor (a severity name, any case); empty for no floor. */
export function severityFilterArgument(describe: string): z.ZodDefault<z.ZodString> {
  return z.string().max(16).default("").describe(describe);
}

/** The `finding_ids` argument of the tools that change findings by id. */
export function findingIdsArgument(verb: string): z.ZodArray<z.ZodString> {
  return z.array(z.string().min(1).max(512)).min(1).max(500).describe(
    `The findings to ${verb} (1 to 500 ids).`,
  );
}
