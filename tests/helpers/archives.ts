/**
 * Helpers for the archive reader tests: temporary trees archived by the real
 * tools, parsers of their listings (`tar -tv`, `zipinfo -l`, `ar tv`), and
 * byte-level writers for crafted (hostile) tar and zip archives.
 */

import { createHash } from "node:crypto";
import { crc32, deflateRawSync } from "node:zlib";
import { concat } from "../../src/apps/artifacts/chunk_source.ts";
import { spawnPiped } from "./programs.ts";

/** Concatenates byte arrays (the artifact reader's own helper; one part is returned as is). */
export { concat };

/** Runs a program; returns stdout bytes, throws with stderr on failure. */
export async function runBytes(
  program: string,
  args: string[],
  options: { cwd?: string; stdin?: Uint8Array } = {},
): Promise<Uint8Array> {
  const out = await (await spawnPiped(program, args, options)).output();
  if (!out.success) {
    throw new Error(`${program} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

/** Runs a program; returns stdout as text. */
export async function runText(
  program: string,
  args: string[],
  options: { cwd?: string } = {},
): Promise<string> {
  return new TextDecoder().decode(await runBytes(program, args, options));
}

/** Runs `sh -c script` in `cwd`. */
export async function sh(script: string, cwd: string): Promise<string> {
  return await runText("sh", ["-c", script], { cwd });
}

/** Concatenates a stream's bytes into a fresh array. */
export async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** SHA-256 of bytes, hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** SHA-256 of a stream, hex, and its length. */
export async function sha256Stream(
  stream: ReadableStream<Uint8Array>,
): Promise<{ sha256: string; length: number }> {
  const hash = createHash("sha256");
  let length = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    length += chunk.byteLength;
  }
  return { sha256: hash.digest("hex"), length };
}

/** `sha256sum` of the regular files under `dir` (paths relative, as bytes in latin1). */
export async function sha256sumTree(dir: string): Promise<Map<string, string>> {
  const out = await runBytes("sh", [
    "-c",
    "find . -type f -print0 | xargs -0 -r sha256sum --zero",
  ], { cwd: dir });
  const map = new Map<string, string>();
  const text = new TextDecoder("latin1").decode(out);
  for (const record of text.split("\0")) {
    if (!record) continue;
    const hash = record.slice(0, 64);
    let path = record.slice(66);
    if (path.startsWith("./")) path = path.slice(2);
    map.set(path, hash);
  }
  return map;
}

/** Latin-1 string of bytes (a lossless byte rendering for comparisons). */
export function latin1(bytes: Uint8Array): string {
  return new TextDecoder("latin1").decode(bytes);
}

/** Bytes of a latin-1 string. */
export function latin1Bytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Undoes GNU tar's `--quoting-style=escape` (octal and C escapes) into latin-1 bytes. */
export function unescapeTar(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c !== 0x5c) {
      out.push(c);
      continue;
    }
    const next = String.fromCharCode(bytes[i + 1] ?? 0);
    if (/[0-7]/.test(next)) {
      const digits = new TextDecoder().decode(bytes.subarray(i + 1, i + 4));
      out.push(parseInt(digits, 8));
      i += 3;
      continue;
    }
    const map: Record<string, number> = {
      "\\": 0x5c,
      n: 0x0a,
      t: 0x09,
      r: 0x0d,
      a: 7,
      b: 8,
      f: 12,
      v: 11,
      " ": 0x20,
    };
    out.push(map[next] ?? next.charCodeAt(0));
    i++;
  }
  return latin1(Uint8Array.from(out));
}

/** One line of `tar --list --verbose --numeric-owner`. */
export interface TarListing {
  typeChar: string;
  mode: number;
  owner: string;
  size: number | null;
  device: string | null;
  /** Name as latin-1 bytes. */
  name: string;
  /** Link target as latin-1 bytes. */
  link: string | null;
}

/** Permission string (`rwxr-x--x`, with s/S/t/T) to mode bits. */
export function permissions(text: string): number {
  let mode = 0;
  if (text.length !== 9) return -1; // not a Unix mode (zipinfo shows FAT attributes)
  const bits = [0o400, 0o200, 0o100, 0o40, 0o20, 0o10, 0o4, 0o2, 0o1];
  for (let i = 0; i < 9; i++) {
    const c = text[i]!;
    if (c !== "-" && c !== "S" && c !== "T") mode |= bits[i]!;
  }
  if (/[sS]/.test(text[2]!)) mode |= 0o4000;
  if (/[sS]/.test(text[5]!)) mode |= 0o2000;
  if (/[tT]/.test(text[8]!)) mode |= 0o1000;
  return mode;
}

/** Parses `tar -tv` (GNU tar, `dpkg-deb -c`) output. */
export function parseTarListing(text: string): TarListing[] {
  const out: TarListing[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const m = /^(\S)(\S{9}) (\S+)\s+(\S+) (\d{4}-\d\d-\d\d) (\S+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`unparsed tar listing line: ${line}`);
    const [, typeChar, perms, owner, sizeField, , , rest] = m as unknown as string[];
    let name = rest!;
    let link: string | null = null;
    if (typeChar === "l") [name, link] = splitOnce(rest!, " -> ");
    if (typeChar === "h") [name, link] = splitOnce(rest!, " link to ");
    out.push({
      typeChar: typeChar!,
      mode: permissions(perms!),
      owner: owner!,
      size: /^\d+$/.test(sizeField!) ? Number(sizeField) : null,
      device: /^\d+,\d+$/.test(sizeField!) ? sizeField! : null,
      name: unescapeTar(name),
      link: link === null ? null : unescapeTar(link),
    });
  }
  return out;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  if (at < 0) throw new Error(`no ${JSON.stringify(separator)} in ${text}`);
  return [text.slice(0, at), text.slice(at + separator.length)];
}

/** One line of `zipinfo -l`. */
export interface ZipinfoListing {
  typeChar: string;
  mode: number;
  uncompressed: number;
  textFlags: string;
  compressed: number;
  method: string;
  name: string;
}

/** Parses `zipinfo -l` output. */
export function parseZipinfo(text: string): ZipinfoListing[] {
  const out: ZipinfoListing[] = [];
  for (const line of text.split("\n")) {
    const m = /^(\S)(\S{6,9})\s+\S+\s+\S+\s+(\d+)\s+(\S\S)\s+(\d+)\s+(\S+)\s+\S+\s+\S+\s(.*)$/.exec(
      line,
    );
    if (!m) continue;
    out.push({
      typeChar: m[1]!,
      mode: permissions(m[2]!),
      uncompressed: Number(m[3]),
      textFlags: m[4]!,
      compressed: Number(m[5]),
      method: m[6]!,
      name: m[7]!,
    });
  }
  return out;
}

/** One line of `ar tv`. */
export interface ArListing {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  name: string;
}

/** Parses `ar tv` output (binutils). */
export function parseArListing(text: string): ArListing[] {
  const out: ArListing[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const m = /^(\S{9}) (\d+)\/(\d+)\s+(\d+) \S+\s+\d+ \d\d:\d\d \d+ (.*)$/.exec(line);
    if (!m) throw new Error(`unparsed ar listing line: ${line}`);
    out.push({
      mode: permissions(m[1]!),
      uid: Number(m[2]),
      gid: Number(m[3]),
      size: Number(m[4]),
      name: m[5]!,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Crafted tar

/** Fields of a crafted tar header; raw byte overrides win. */
export interface TarHeaderSpec {
  name: string | Uint8Array;
  size?: number;
  typeflag?: string;
  linkname?: string | Uint8Array;
  mode?: number;
  format?: "ustar" | "gnu" | "v7";
  prefix?: string;
  /** Raw 12-byte size field (e.g. base-256). */
  sizeField?: Uint8Array;
  devmajor?: number;
  devminor?: number;
  /** Replaces the computed checksum. */
  checksum?: number;
}

function put(block: Uint8Array, at: number, width: number, value: string | Uint8Array): void {
  const bytes = typeof value === "string" ? latin1Bytes(value) : value;
  block.set(bytes.subarray(0, width), at);
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** One 512-byte tar header with a correct checksum (unless overridden). */
export function tarHeader(spec: TarHeaderSpec): Uint8Array {
  const block = new Uint8Array(512);
  put(block, 0, 100, spec.name);
  put(block, 100, 8, octal(spec.mode ?? 0o644, 8));
  put(block, 108, 8, octal(0, 8));
  put(block, 116, 8, octal(0, 8));
  if (spec.sizeField) block.set(spec.sizeField.subarray(0, 12), 124);
  else put(block, 124, 12, octal(spec.size ?? 0, 12));
  put(block, 136, 12, octal(1700000000, 12));
  put(block, 156, 1, spec.typeflag ?? "0");
  if (spec.linkname !== undefined) put(block, 157, 100, spec.linkname);
  const format = spec.format ?? "ustar";
  if (format === "ustar") put(block, 257, 8, "ustar\x0000");
  if (format === "gnu") put(block, 257, 8, "ustar  \0");
  if (format !== "v7") {
    put(block, 265, 32, "root");
    put(block, 297, 32, "root");
    put(block, 329, 8, octal(spec.devmajor ?? 0, 8));
    put(block, 337, 8, octal(spec.devminor ?? 0, 8));
  }
  if (spec.prefix) put(block, 345, 155, spec.prefix);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(block, 148, 8, octal(spec.checksum ?? sum, 7) + " ");
  return block;
}

/** Pads data to whole 512-byte blocks. */
export function tarData(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.byteLength / 512) * 512);
  out.set(data);
  return out;
}

/** A pax extended header payload (`len key=value\n` records). */
export function paxPayload(records: [string, Uint8Array | string][]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [key, value] of records) {
    const valueBytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
    const body = [...new TextEncoder().encode(` ${key}=`), ...valueBytes, 0x0a];
    let length = body.length + 1;
    while (String(length).length + body.length !== length) length++;
    parts.push(Uint8Array.from([...new TextEncoder().encode(String(length)), ...body]));
  }
  return concat(parts);
}

/** Two end-of-archive blocks. */
export const TAR_END: Uint8Array = new Uint8Array(1024);

// ---------------------------------------------------------------------------
// Crafted zip

/** One crafted zip entry. */
export interface ZipSpec {
  name: string | Uint8Array;
  data: Uint8Array;
  method?: 0 | 8;
  /** Flags (bit 11 = UTF-8, bit 0 = encrypted). */
  flags?: number;
  /** Unix mode to store in the external attributes (host Unix). */
  unixMode?: number;
  /** Overrides for what the central directory declares. */
  declaredUncompressed?: number;
  declaredCrc?: number;
  /** Name written in the local header instead of `name`. */
  localName?: string;
  /** Central record points at the local header of this earlier entry index. */
  shareLocalWith?: number;
}

/** What one entry's zip headers declare (see {@link zipLocalHeader}, {@link zipCentralHeader}). */
export interface ZipEntryHeader {
  /** The name as written. */
  name: Uint8Array;
  /** Flags (bit 11 = UTF-8, bit 0 = encrypted). @default 0 */
  flags?: number;
  /** 0 stored, 8 deflated. @default 0 */
  method?: number;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Unix mode for the central record's external attributes (host Unix). */
  unixMode?: number;
  /** Where the central record says the local header is. @default 0 */
  localOffset?: number;
}

/** A zip local file header (version 2.0, a fixed DOS date), the name after it. */
export function zipLocalHeader(entry: ZipEntryHeader): Uint8Array {
  const local = new Uint8Array(30 + entry.name.byteLength);
  const v = new DataView(local.buffer);
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, 20, true);
  v.setUint16(6, entry.flags ?? 0, true);
  v.setUint16(8, entry.method ?? 0, true);
  v.setUint16(10, 0, true);
  v.setUint16(12, 0x5821, true);
  v.setUint32(14, entry.crc, true);
  v.setUint32(18, entry.compressedSize, true);
  v.setUint32(22, entry.uncompressedSize, true);
  v.setUint16(26, entry.name.byteLength, true);
  local.set(entry.name, 30);
  return local;
}

/** A zip central directory record (made by MS-DOS, or Unix with `unixMode`), the name after it. */
export function zipCentralHeader(entry: ZipEntryHeader): Uint8Array {
  const central = new Uint8Array(46 + entry.name.byteLength);
  const c = new DataView(central.buffer);
  c.setUint32(0, 0x02014b50, true);
  c.setUint16(4, entry.unixMode !== undefined ? 0x0314 : 0x0014, true);
  c.setUint16(6, 20, true);
  c.setUint16(8, entry.flags ?? 0, true);
  c.setUint16(10, entry.method ?? 0, true);
  c.setUint16(14, 0x5821, true);
  c.setUint32(16, entry.crc, true);
  c.setUint32(20, entry.compressedSize, true);
  c.setUint32(24, entry.uncompressedSize, true);
  c.setUint16(28, entry.name.byteLength, true);
  c.setUint32(38, entry.unixMode !== undefined ? (entry.unixMode << 16) >>> 0 : 0, true);
  c.setUint32(42, entry.localOffset ?? 0, true);
  central.set(entry.name, 46);
  return central;
}

/** The end-of-central-directory record of a zip (no zip64). */
export function zipEndRecord(
  entries: number,
  directory: { size: number; offset: number; comment?: string },
): Uint8Array {
  const comment = new TextEncoder().encode(directory.comment ?? "");
  const end = new Uint8Array(22 + comment.byteLength);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true);
  e.setUint16(8, entries, true);
  e.setUint16(10, entries, true);
  e.setUint32(12, directory.size, true);
  e.setUint32(16, directory.offset, true);
  e.setUint16(20, comment.byteLength, true);
  end.set(comment, 22);
  return end;
}

/** A zip archive (local headers, data, central directory, end record) from specs. */
export function zipArchive(
  specs: ZipSpec[],
  options: { declaredEntries?: number; comment?: string } = {},
): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const [index, spec] of specs.entries()) {
    const name = typeof spec.name === "string" ? new TextEncoder().encode(spec.name) : spec.name;
    const method = spec.method ?? 0;
    const stored = method === 8 ? deflateRawSync(spec.data) : spec.data;
    const header = {
      name,
      flags: spec.flags ?? 0,
      method,
      crc: spec.declaredCrc ?? (crc32(spec.data) >>> 0),
      compressedSize: stored.byteLength,
      uncompressedSize: spec.declaredUncompressed ?? spec.data.byteLength,
    };
    let localOffset = offset;
    if (spec.shareLocalWith !== undefined) {
      localOffset = offsets[spec.shareLocalWith]!;
    } else {
      const localName = spec.localName ? new TextEncoder().encode(spec.localName) : name;
      const local = zipLocalHeader({ ...header, name: localName });
      locals.push(local, stored);
      offset += local.byteLength + stored.byteLength;
    }
    offsets[index] = localOffset;
    const unixMode = spec.unixMode !== undefined ? { unixMode: spec.unixMode } : {};
    centrals.push(zipCentralHeader({ ...header, ...unixMode, localOffset }));
  }
  const directory = concat(centrals);
  const end = zipEndRecord(options.declaredEntries ?? specs.length, {
    size: directory.byteLength,
    offset,
    comment: options.comment ?? "",
  });
  return concat([...locals, directory, end]);
}

/** A stream over bytes in chunks of `chunk` bytes. */
export function bytesStream(bytes: Uint8Array, chunk = 65536): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller): void {
      if (at >= bytes.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(at, at + chunk));
      at += chunk;
    },
  });
}

/** Rejects when `promise` takes longer than `ms` (a hang is a failure). */
export async function within<T>(ms: number, label: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
