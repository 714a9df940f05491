/**
 * Member names that are not plain text keep their identity: bytes that are
 * not valid UTF-8 and invisible or control characters are percent-escaped in
 * the logical path (never replaced or dropped), the raw name is kept in
 * original_name_hex, and such a member is flagged as hostile (never
 * extracted). Two members share a path only when their raw names name the
 * same file. The raw names, contents and counts are the peers' (python3's
 * tarfile, unzip and zipinfo), taken at test time.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { escapeMemberName } from "../src/apps/artifacts/member_names.ts";
import { entryName } from "../src/apps/artifacts/tar.ts";
import { firstInvisible } from "../src/core/policy/sanitize.ts";
import { connect, fails, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { mulberry32 } from "./helpers/random.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const MISSING = ["python3", "unzip", "zipinfo"].find((p) => !hasProgram(p));
const IGNORE = MISSING ? `needs ${MISSING} (--allow-run=${MISSING})` : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

/** The bytes a logical path stands for: each `%XX` one byte, the rest UTF-8. */
function unescaped(path: string): Uint8Array {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < path.length;) {
    if (path[i] === "%") {
      bytes.push(parseInt(path.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const c = String.fromCodePoint(path.codePointAt(i)!);
      bytes.push(...encoder.encode(c));
      i += c.length;
    }
  }
  return new Uint8Array(bytes);
}

const hex = (bytes: Uint8Array): string =>
  [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return hex(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
  );
}

/** Runs a python3 script with `args`; returns its stdout. */
function python(script: string, args: string[]): Promise<string> {
  return run("python3", ["-c", script, ...args]);
}

Deno.test("escapeMemberName() keeps every byte of a name: unescaping the path gives the raw bytes back", () => {
  const random = mulberry32(20240317);
  // Bytes that make names interesting: invalid UTF-8, controls, %, and the starts of
  // multi-byte sequences (U+202E is e2 80 ae, U+200B is e2 80 8b).
  const alphabet = [0x61, 0x25, 0x0a, 0x09, 0x7f, 0xe9, 0xff, 0xc3, 0xa9, 0xe2, 0x80, 0xae, 0x8b];
  const seen = new Map<string, string>();
  for (let n = 0; n < 20_000; n++) {
    const length = 1 + Math.floor(random() * 6);
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) bytes[i] = alphabet[Math.floor(random() * alphabet.length)]!;
    const escaped = escapeMemberName(entryName(bytes));
    assert.equal(escaped.segments.length, 1);
    const path = escaped.segments[0]!;
    assert.equal(hex(unescaped(path)), hex(bytes), path);
    // Only one raw name escapes to each path.
    const before = seen.get(path);
    assert.ok(
      before === undefined || before === hex(bytes),
      `${before} and ${hex(bytes)}: ${path}`,
    );
    seen.set(path, hex(bytes));
    assert.equal(firstInvisible(path), null, path);
    // Hostile: not UTF-8, or holding a control or format (invisible) character.
    let text: string | null = null;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      // not valid UTF-8
    }
    const hostile = text === null || /[\p{Cc}\p{Cf}]/u.test(text);
    assert.equal(escaped.hostile, hostile, `${hex(bytes)}: ${escaped.reason}`);
  }
  assert.ok(seen.size > 10_000, `${seen.size} distinct names`);
});

Deno.test("escapeMemberName() escapes and flags every character the output sanitizer would strip", () => {
  let flagged = 0;
  for (let point = 0; point <= 0x10ffff; point++) {
    if (point >= 0xd800 && point <= 0xdfff) continue;
    const c = String.fromCodePoint(point);
    if (firstInvisible(c) === null) continue;
    const escaped = escapeMemberName(entryName(new TextEncoder().encode(`a${c}b`)));
    const path = escaped.segments.join("/");
    assert.equal(firstInvisible(path), null, `U+${point.toString(16)} left in ${path}`);
    assert.equal(hex(unescaped(path)), hex(new TextEncoder().encode(`a${c}b`)));
    assert.ok(escaped.hostile, `U+${point.toString(16)} not flagged`);
    flagged++;
  }
  assert.ok(flagged > 150, `${flagged} characters`);
});

/** Names python3's tarfile writes (surrogates stand for bytes that are not UTF-8). */
const TAR_NAMES = [
  "caf\\udce9.txt",
  "caf\\udce8.txt",
  "x\\u202etxt.exe",
  "xtxt.exe",
  "zero\\u200bwidth",
  "zerowidth",
  "tab\\there",
  "plain.txt",
];

/** Writes a GNU tar at argv[1]; each member's content names it, with argv[2] as a prefix. */
const WRITE_TAR = `
import io, sys, tarfile
names = [${TAR_NAMES.map((n) => `"${n}"`).join(", ")}]
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as out:
    for i, name in enumerate(names):
        data = (sys.argv[2] if i == 0 else "") + "member %d\\n" % i
        info = tarfile.TarInfo(name)
        info.size = len(data.encode())
        out.addfile(info, io.BytesIO(data.encode()))
`;

/** Lists a tar as the peer reads it: raw name hex, then the content's sha256, one line each. */
const LIST_TAR = `
import hashlib, sys, tarfile
with tarfile.open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as t:
    for m in t.getmembers():
        raw = m.name.encode("utf-8", "surrogateescape")
        print(raw.hex(), hashlib.sha256(t.extractfile(m).read()).hexdigest())
`;

async function peerTar(path: string): Promise<Map<string, string>> {
  const lines = (await python(LIST_TAR, [path])).trim().split("\n");
  return new Map(lines.map((line) => line.split(" ") as [string, string]));
}

Deno.test({
  name:
    "inventory_artifact keeps tar names that are not valid UTF-8 or hold invisible characters apart, as python3's tarfile lists them",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const roots = join(dir, "roots");
      await Deno.mkdir(roots);
      const left = join(roots, "left.tar");
      const right = join(roots, "right.tar");
      await python(WRITE_TAR, [left, ""]);
      await python(WRITE_TAR, [right, "changed "]);
      const peer = await peerTar(left);
      assert.equal(peer.size, TAR_NAMES.length);

      const { client, close } = await connect({ roots: [roots, dir], allowFileWrites: true });
      try {
        await ok(client, "open_binary", { path: left });
        const full = await inventoryAll(client);
        assert.equal(full.manifest.complete, true);
        assert.deepEqual(full.first.limitations, [], "nothing shadowed");
        const members = full.occurrences.filter((o: Loose) => o.logical_path !== ".");
        assert.equal(
          members.length,
          peer.size,
          JSON.stringify(members.map((o: Loose) => o.logical_path)),
        );
        assert.equal(new Set(members.map((o: Loose) => o.logical_path)).size, peer.size);
        for (const o of members) {
          const raw = hex(unescaped(o.logical_path));
          assert.equal(o.sha256, peer.get(raw), `${o.logical_path}: ${raw}`);
          if (o.original_name_hex !== null) assert.equal(o.original_name_hex, raw);
        }
        const byPath = new Map<string, Loose>(members.map((o: Loose) => [o.logical_path, o]));
        const expectations: Array<[string, string | null]> = [
          ["caf%E9.txt", "not valid UTF-8"],
          ["caf%E8.txt", "not valid UTF-8"],
          ["x%E2%80%AEtxt.exe", "contains an invisible character (U+202E)"],
          ["zero%E2%80%8Bwidth", "contains an invisible character (U+200B)"],
          ["tab%09here", "contains a control character (U+0009)"],
          ["xtxt.exe", null],
          ["zerowidth", null],
          ["plain.txt", null],
        ];
        for (const [path, reason] of expectations) {
          const o = byPath.get(path);
          assert.ok(o, `${path} in ${[...byPath.keys()].join(", ")}`);
          if (reason === null) {
            assert.equal(o.original_name_hex, null, path);
            assert.deepEqual(o.limitations, [], path);
          } else {
            assert.equal(o.original_name_hex, hex(unescaped(path)), path);
            assert.deepEqual(o.limitations, [`Hostile member name escaped: ${reason}.`], path);
          }
        }
        // A flagged member is never extracted, and the refusal says why.
        for (const [path, reason] of expectations.slice(0, 3)) {
          const refused = await fails(client, "extract_artifact", {
            approved: true,
            output_root: join(dir, `out-${path}`),
            occurrence_ids: [byPath.get(path).occurrence_id],
          });
          assert.ok(refused.message.includes(reason!), refused.message);
          await assert.rejects(Deno.lstat(join(dir, `out-${path}`)));
        }
        const left_ids = full.ids;

        // The peer sees one member changed between the two tars; so must the comparison.
        const peerRight = await peerTar(right);
        const changed = [...peer].filter(([raw, sha]) => peerRight.get(raw) !== sha);
        assert.equal(changed.length, 1);
        await ok(client, "open_binary", { path: right });
        const other = await inventoryAll(client);
        const compared = (await ok(client, "compare_artifacts", {
          left_evidence_ids: left_ids,
          right_evidence_ids: other.ids,
          limit: 500,
        })).result;
        assert.equal(compared.status, "changed");
        const changes = compared.changes.items;
        assert.deepEqual(
          changes.map((c: Loose) => [c.status, hex(unescaped(c.logical_path))]),
          changed.map(([raw]) => ["changed", raw]),
          JSON.stringify(changes),
        );
      } finally {
        await close();
      }
    }),
});

/**
 * Writes a zip at argv[1] whose names are argv[2:] in hex; each name is
 * first written as a same-length placeholder, then its bytes are put in both
 * headers and the UTF-8 flag (bit 11) set, as a writer that trusts its names
 * to be UTF-8 would leave them.
 */
const WRITE_ZIP = `
import struct, sys, zipfile
names = [bytes.fromhex(h) for h in sys.argv[2:]]
holders = [bytes([0x41 + i]) * len(n) for i, n in enumerate(names)]
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for i, holder in enumerate(holders):
        z.writestr(holder.decode(), ("content of member %d\\n" % i) * (i + 1))
data = bytearray(open(sys.argv[1], "rb").read())
for holder, name in zip(holders, names):
    for signature, flags, name_at in ((b"PK\\x03\\x04", 6, 30), (b"PK\\x01\\x02", 8, 46)):
        at = data.find(signature)
        while at >= 0:
            if data[at + name_at:at + name_at + len(holder)] == holder:
                data[at + name_at:at + name_at + len(holder)] = name
                struct.pack_into("<H", data, at + flags, struct.unpack_from("<H", data, at + flags)[0] | 0x800)
            at = data.find(signature, at + 4)
open(sys.argv[1], "wb").write(data)
`;

Deno.test({
  name:
    "inventory_artifact keeps zip names flagged UTF-8 but not valid UTF-8 apart, as unzip lists and extracts them",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const path = join(dir, "names.zip");
      const names = ["foo\xff.txt", "foo\xfe.txt", "bar\u202e.txt", "bar.txt"].map((n) =>
        n.startsWith("foo")
          ? new Uint8Array([...n].map((c) => c.charCodeAt(0)))
          : new TextEncoder().encode(n)
      );
      await python(WRITE_ZIP, [path, ...names.map(hex)]);
      // The peer: unzip's raw names, zipinfo's sizes, and unzip -p's bytes in that order.
      const listing = await new Deno.Command("unzip", { args: ["-Z1", path], stdout: "piped" })
        .output();
      const rawNames: Uint8Array[] = [];
      let start = 0;
      for (let i = 0; i < listing.stdout.length; i++) {
        if (listing.stdout[i] !== 0x0a) continue;
        rawNames.push(listing.stdout.slice(start, i));
        start = i + 1;
      }
      assert.deepEqual(rawNames.map(hex), names.map(hex));
      const sizes = (await run("zipinfo", ["-l", path])).split("\n")
        .filter((line) => /^\S{10} +\d+\.\d /.test(line)).map((line) =>
          Number(line.split(/\s+/)[3])
        );
      assert.equal(sizes.length, names.length);
      const all = (await new Deno.Command("unzip", { args: ["-p", path], stdout: "piped" })
        .output()).stdout;
      const peer = new Map<string, string>();
      let at = 0;
      for (const [i, raw] of rawNames.entries()) {
        peer.set(hex(raw), await sha256Hex(all.slice(at, at + sizes[i]!)));
        at += sizes[i]!;
      }
      assert.equal(at, all.length);

      const { client, close } = await connect({ roots: [dir] });
      try {
        await ok(client, "open_binary", { path });
        const full = await inventoryAll(client);
        assert.equal(full.manifest.complete, true);
        assert.deepEqual(full.first.limitations, []);
        const members = full.occurrences.filter((o: Loose) => o.logical_path !== ".");
        assert.deepEqual(
          members.map((o: Loose) => o.logical_path).sort(),
          ["bar%E2%80%AE.txt", "bar.txt", "foo%FE.txt", "foo%FF.txt"],
        );
        for (const o of members) {
          const raw = hex(unescaped(o.logical_path));
          assert.equal(o.sha256, peer.get(raw), o.logical_path);
          assert.equal(o.original_name_hex, o.logical_path === "bar.txt" ? null : raw);
        }
      } finally {
        await close();
      }
    }),
});

/** Writes a GNU tar at argv[1] of symlinks `l<i>` to the targets argv[2:] (hex bytes). */
const WRITE_LINKS = `
import sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as out:
    for i, target in enumerate(sys.argv[2:]):
        info = tarfile.TarInfo("l%d" % i)
        info.type = tarfile.SYMTYPE
        info.linkname = bytes.fromhex(target).decode("utf-8", "surrogateescape")
        out.addfile(info)
`;

/** Lists a tar's symlinks as the peer reads them: name, then the target's bytes in hex. */
const LIST_LINKS = `
import sys, tarfile
with tarfile.open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as t:
    for m in t.getmembers():
        if m.issym():
            print(m.name, m.linkname.encode("utf-8", "surrogateescape").hex())
`;

Deno.test({
  name:
    "inventory_artifact keeps symlink targets that are not valid UTF-8 apart, as python3's tarfile lists their bytes",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const path = join(dir, "links.tar");
      const targets = ["caf\xe9", "caf\xe8", "50%\xff", "50%", "plain/../t"].map((t) =>
        hex(Uint8Array.from(t, (c) => c.charCodeAt(0)))
      );
      await python(WRITE_LINKS, [path, ...targets]);
      const peer = new Map(
        (await python(LIST_LINKS, [path])).trim().split("\n").map((line) =>
          line.split(" ") as [string, string]
        ),
      );
      assert.equal(peer.size, targets.length);
      const { client, close } = await connect({ roots: [dir] });
      try {
        await ok(client, "open_binary", { path });
        const full = await inventoryAll(client);
        const links = full.occurrences.filter((o: Loose) => o.entry_kind === "symlink");
        assert.equal(links.length, peer.size);
        for (const link of links) {
          const raw = peer.get(link.logical_path)!;
          const escaped = link.limitations.includes(
            "Its link target is not valid UTF-8: each byte that is not is written %XX, and % as %25.",
          );
          // A target that is valid UTF-8 is given as it is stored; only one that is not is escaped.
          const bytes = escaped
            ? unescaped(link.link_target)
            : new TextEncoder().encode(link.link_target);
          assert.equal(hex(bytes), raw, `${link.logical_path}: ${link.link_target}`);
          assert.equal(escaped, ["l0", "l1", "l2"].includes(link.logical_path), link.logical_path);
        }
        assert.equal(new Set(links.map((l: Loose) => l.link_target)).size, links.length);
      } finally {
        await close();
      }
    }),
});
