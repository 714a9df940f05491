/**
 * C++ (Itanium) and Rust (legacy and v0) symbol demangling through the
 * `gecko-profiler-demangle` WebAssembly package. Names that do not look
 * mangled, or that the demangler does not change, yield null.
 *
 * @module
 */

/** The demangler package, as the import map pins it (a test keeps the two equal). */
export const DEMANGLER_PACKAGE = "gecko-profiler-demangle@0.4.0";

let demangleAny: ((name: string) => string) | null = null;
let loading: Promise<void> | null = null;

/**
 * Loads the demangler (its wasm compiles on first load, so it is not loaded at
 * start-up). Opening a target awaits it; `demangle` answers null until then.
 */
export function ensureDemangler(): Promise<void> {
  loading ??= import("gecko-profiler-demangle").then((module) => {
    demangleAny = module.demangle_any;
  });
  return loading;
}

/** Longest name handed to the demangler. */
export const MAX_MANGLED_LENGTH = 4096;

const MANGLED = /^(?:_{1,2}Z|_{1,2}R|\?)/;

/** The demangled form of `name`, or null when it is not a mangled C++/Rust name. */
export function demangle(name: string): string | null {
  if (name.length < 4 || name.length > MAX_MANGLED_LENGTH || !MANGLED.test(name)) return null;
  if (!demangleAny) return null;
  try {
    const result = demangleAny(name);
    return result !== name && result.length > 0 ? result : null;
  } catch {
    return null;
  }
}
