/**
 * C++ (Itanium and MSVC) and Rust (legacy and v0) symbol demangling through
 * the `gecko-profiler-demangle` WebAssembly package. Names that do not look
 * mangled, or that the demangler does not change, yield null. The package
 * leaves out the `const` (and `volatile`) of an MSVC member function's
 * `this`; it is added back for names whose scope holds no template.
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
    if (result === name || result.length === 0) return null;
    return name.startsWith("?") ? result + msvcThisQualifiers(name, result) : result;
  } catch {
    return null;
  }
}

/** MSVC function classes of non-static member functions: private, protected, public; plain and virtual. */
const MEMBER_CLASSES = new Set(["A", "B", "E", "F", "I", "J", "M", "N", "Q", "R", "U", "V"]);

/** The `this` qualifiers an MSVC cv code spells. */
const THIS_QUALIFIERS: Readonly<Record<string, string>> = {
  B: " const",
  C: " volatile",
  D: " const volatile",
};

/**
 * The qualifiers of `this` the MSVC name of a non-static member function
 * encodes (` const` for `QEBA…`), which the demangler leaves out; "" when
 * `demangled` already ends with them, when there are none, or when the name
 * is not one this reads: its scope must hold no template (`?$`) and no
 * nested name, so that its first `@@` ends the qualified name. After that
 * come the function class, `E` (`__ptr64`), `F`/`I` (`__unaligned`,
 * `__restrict`) and the cv code.
 */
function msvcThisQualifiers(name: string, demangled: string): string {
  if (!demangled.endsWith(")")) return "";
  // `??X` special names (operators, constructors): the code is part of the first fragment.
  const start = name.startsWith("??") ? (name[2] === "_" ? (name[3] === "_" ? 5 : 4) : 3) : 1;
  const end = name.indexOf("@@", start);
  if (end < 0 || name.slice(start, end).includes("?")) return "";
  let i = end + 2;
  if (!MEMBER_CLASSES.has(name[i] ?? "")) return "";
  i++;
  while (name[i] === "E" || name[i] === "F" || name[i] === "I") i++;
  const qualifiers = THIS_QUALIFIERS[name[i] ?? ""] ?? "";
  return qualifiers !== "" && !demangled.endsWith(qualifiers) ? qualifiers : "";
}
