/**
 * Orderings shared by cloud queries: plain Unicode code-point comparison
 * (never locale collation), as the reference sorts strings. The comparison is
 * the one core's completion engine and the apps workbench use.
 *
 * @example
 * ```ts
 * import { compareCodePoints } from "./order.ts";
 * ["b", "B", "a"].sort(compareCodePoints); // ["B", "a", "b"]
 * ```
 *
 * @module
 */

export { compareCodePoints } from "../../core/completion.ts";
