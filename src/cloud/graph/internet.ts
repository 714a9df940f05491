/**
 * How the internet appears in a cloud graph: the spellings a caller may use
 * for it, the rule sources that stand for it, and the virtual node that
 * path searches start from.
 *
 * @module
 */

/** The virtual node linked to every internet entry point when a search starts at "the internet". */
export const INTERNET_NODE = "__internet__";

/** The CIDRs that stand for the whole internet. */
export const INTERNET_CIDRS: readonly string[] = ["0.0.0.0/0", "::/0"];

const INTERNET_REFS = new Set(["internet", "public", "0.0.0.0/0", "::/0"]);
const INTERNET_SOURCES = new Set(["0.0.0.0/0", "::/0", "*", "internet", "any"]);

/**
 * Whether a caller's reference means the internet: `internet`, `public`,
 * `0.0.0.0/0` or `::/0`, ignoring case and surrounding blanks.
 */
export function isInternetRef(ref: string): boolean {
  return INTERNET_REFS.has(ref.trim().toLowerCase());
}

/**
 * Whether a rule source or CIDR stands for the whole internet: the two
 * internet CIDRs and the Azure service tags `Internet`, `Any` and `*`,
 * ignoring case and surrounding blanks.
 */
export function isInternetSource(value: string | null | undefined): boolean {
  return INTERNET_SOURCES.has((value ?? "").trim().toLowerCase());
}

/** Whether an edge direction reads as egress (case-insensitive). */
export function isEgress(direction: string | null | undefined): boolean {
  return (direction ?? "").toLowerCase() === "egress";
}
