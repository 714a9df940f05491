/**
 * A WebAssembly module translated into the format-neutral `BinaryImage`:
 * function bodies as procedures, imports and exports, and the code map the
 * body decoder reads.
 *
 * @module
 */

import { codeMapOf } from "../../disasm/wasm_code.ts";
import type {
  BinaryImage,
  ImageExport,
  ImageFunction,
  ImageImport,
  ImageSection,
} from "../binary_image.ts";
import type { WasmFunctionBody } from "./model.ts";
import { parseWasm } from "./parse.ts";

/**
 * Parses a WebAssembly module and adapts it to a {@linkcode BinaryImage}.
 *
 * WebAssembly code has no virtual addresses, so **every address in the image
 * is a file offset** (as a bigint): a section's address is the offset of its
 * contents, a function's address is the offset of its body (the first byte
 * after the body's size, where its local declarations begin), and the entry
 * point is the body offset of the start function.
 *
 * - `sections`: one per section in file order, named by kind (`type`,
 *   `import`, `function`, `table`, `memory`, `global`, `export`, `start`,
 *   `element`, `code`, `data`, `datacount`, `tag`, `section-<id>` for an
 *   unknown id) or `custom:<name>` for a custom section; all readable, none
 *   writable, only `code` executable.
 * - `functions`: one per function body, named from the `name` section
 *   (source `"name-section"`), else by its first export (source `"export"`),
 *   else `""` (source `"code-section"`); `names` holds every distinct name.
 * - `imports`: the function imports (`library` is the module name, `address`
 *   the file offset of the import's entry: the address a `call` to it names).
 * - `exports`: the function exports; the address is the body offset of the
 *   exported function, or null for a re-exported import (then `forwardedTo`
 *   is `module.name`) or a function whose body is missing.
 * - `entry`: the start function's body offset, or null.
 * - `libraries`: the distinct module names of all imports, in file order.
 * - `buildId`: the `build_id` section as hex, or null.
 *
 * @param bytes The whole file.
 * @param document A short name for the document, such as the file name.
 * @returns The image; `warnings` are those of {@linkcode parseWasm}.
 * @throws {WasmParseError} As {@linkcode parseWasm}.
 */
export function wasmImage(bytes: Uint8Array, document: string): BinaryImage {
  const module = parseWasm(bytes);
  const length = bytes.length;

  const sections: ImageSection[] = module.sections.map((s) => {
    const name = s.kind === "custom"
      ? `custom:${s.name ?? ""}`
      : s.kind === "unknown"
      ? `section-${s.id}`
      : s.kind;
    return {
      name,
      address: BigInt(s.offset),
      size: BigInt(s.size),
      fileOffset: s.offset,
      fileSize: Math.max(0, Math.min(s.size, length - s.offset)),
      readable: true,
      writable: false,
      executable: s.kind === "code",
    };
  });

  const functionImports = module.imports.filter((i) => i.kind === "func");
  const importedFunctions = functionImports.length;
  const bodyAt = new Map<number, WasmFunctionBody>();
  for (const body of module.bodies) bodyAt.set(body.index, body);

  const sectionNames = new Map<number, string>();
  for (const { index, name } of module.names?.functions ?? []) {
    if (!sectionNames.has(index)) sectionNames.set(index, name);
  }
  const exportNames = new Map<number, string[]>();
  for (const e of module.exports) {
    if (e.kind !== "func") continue;
    const list = exportNames.get(e.index);
    if (list === undefined) exportNames.set(e.index, [e.name]);
    else list.push(e.name);
  }

  const functions: ImageFunction[] = module.bodies.map((body) => {
    const fromSection = sectionNames.get(body.index);
    const fromExports = exportNames.get(body.index) ?? [];
    const names = new Set<string>(fromExports);
    if (fromSection !== undefined) names.add(fromSection);
    names.delete("");
    let name = "";
    let source: ImageFunction["source"] = "code-section";
    if (fromSection !== undefined && fromSection !== "") {
      name = fromSection;
      source = "name-section";
    } else {
      const exported = fromExports.find((n) => n !== "");
      if (exported !== undefined) {
        name = exported;
        source = "export";
      }
    }
    return {
      address: BigInt(body.offset),
      size: BigInt(body.size),
      name,
      names: [...names].sort(),
      source,
    };
  });

  const imports: ImageImport[] = functionImports.map((i) => ({
    library: i.module,
    name: i.name,
    address: BigInt(i.offset),
  }));

  const exports: ImageExport[] = [];
  for (const e of module.exports) {
    if (e.kind !== "func") continue;
    if (e.index < importedFunctions) {
      const target = functionImports[e.index]!;
      exports.push({ name: e.name, address: null, forwardedTo: `${target.module}.${target.name}` });
    } else {
      const body = bodyAt.get(e.index);
      exports.push({ name: e.name, address: body === undefined ? null : BigInt(body.offset) });
    }
  }

  const startBody = module.start === null ? undefined : bodyAt.get(module.start);
  const libraries = [...new Set(module.imports.map((i) => i.module))];

  return {
    format: "wasm",
    document,
    architecture: "wasm32",
    machine: "wasm",
    bits: 32,
    endianness: "little",
    entry: startBody === undefined ? null : BigInt(startBody.offset),
    sections,
    functions,
    imports,
    exports,
    libraries,
    buildId: module.buildId,
    warnings: module.warnings,
    fileBase: 0,
    bytes,
    wasmCode: codeMapOf(module),
  };
}
