/**
 * C++ (Itanium) and Rust (legacy and v0) symbol demangling through the
 * `gecko-profiler-demangle` WebAssembly package. Names that do not look
 * mangled, or that the demangler does not change, yield null.
 *
 * @module
 */

import { demangle_any } from "gecko-profiler-demangle";

/** Longest name handed to the demangler. */
export const MAX_MANGLED_LENGTH = 4096;

const MANGLED = /^(?:_{1,2}Z|_{1,2}R|\?)/;

/** The demangled form of `name`, or null when it is not a mangled C++/Rust name. */
export function demangle(name: string): string | null {
  if (name.length < 4 || name.length > MAX_MANGLED_LENGTH || !MANGLED.test(name)) return null;
  try {
    const result = demangle_any(name);
    return result !== name && result.length > 0 ? result : null;
  } catch {
    return null;
  }
}
