/**
 * A C name asked for without the leading underscore Mach-O symbols carry
 * (nm lists `_main`) is refused with the spelling that is there, and the
 * other way round; the address named is the one llvm-nm gives.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fails, hasProgram, ok, run, withClient, withTempRoot } from "./helpers/in_memory.ts";
import { withoutParameters } from "../src/apps/analysis/procedures.ts";
import { llcObject } from "./helpers/llvm.ts";
import { findLibc } from "./helpers/system_files.ts";

const READY = ["llc-14", "llvm-nm-14"].every((program) => hasProgram(program));
if (!READY) console.log("apps_procedure_spelling_test: needs llc-14 and llvm-nm-14: skipped");

const MODULE = `
define i32 @leaf(i32 %x) noinline {
  %a = mul i32 %x, 3
  ret i32 %a
}
define i32 @main() {
  %r = call i32 @leaf(i32 4)
  ret i32 %r
}
`;

Deno.test({
  name:
    "procedure_address names the underscored spelling a Mach-O object holds, at llvm-nm's address",
  ignore: !READY
    ? (console.log("apps_procedure_spelling_test: needs llc-14 and llvm-nm-14"), true)
    : false,
  fn: () =>
    withTempRoot("casefile-spelling-", async ({ client, dir: root }) => {
      const object = await llcObject(root, "m", MODULE, "x86_64-apple-macosx11", []);
      // llvm-nm: "0000000000000010 T _main"
      const peer = new Map(
        (await run("llvm-nm-14", [object])).trim().split("\n").map((line) => {
          const [address, , name] = line.trim().split(/\s+/);
          return [name!, `0x${BigInt(`0x${address}`).toString(16)}`] as const;
        }),
      );
      assert.ok(peer.has("_main") && peer.has("_leaf"), [...peer.keys()].join(", "));
      await ok(client, "open_binary", { path: object });

      const found = await ok(client, "procedure_address", { procedure: "_main" });
      assert.equal(found.result.address, peer.get("_main"));
      for (const [asked, there] of [["main", "_main"], ["leaf", "_leaf"]] as const) {
        const error = await fails(client, "procedure_address", { procedure: asked });
        assert.equal(error.code, "invalid_request");
        assert.ok(
          error.message.includes(`"${there}" is (${peer.get(there)})`),
          error.message,
        );
        assert.match(error.message, /with a leading underscore/);
        assert.equal(error.remediation.action, `Pass "${there}" or the 0x address.`);
      }
      // The other way round: "__main" is not there, "_main" without its underscore is not either.
      const back = await fails(client, "procedure_address", { procedure: "__leaf" });
      assert.match(back.message, /"_leaf" is \(0x0\): .* without a leading underscore/);
      const none = await fails(client, "procedure_address", { procedure: "absent" });
      assert.equal(none.message, 'No procedure is named "absent".');
    }),
});

const CPP = `
namespace ns {
struct S {
  int f(int x) const;
  int f(double x) const;
  int g(int x);
};
int S::f(int x) const { return x + 1; }
int S::f(double x) const { return static_cast<int>(x * 2); }
int S::g(int x) { return x * 3; }
}
extern "C" int vfun(int x) { return x - 1; }
`;

const CPP_READY = ["g++", "nm"].every((program) => hasProgram(program));
if (!CPP_READY) console.log("apps_procedure_spelling_test: needs g++ and nm: C++ case skipped");

Deno.test({
  name:
    "procedure_address: a C++ name without parameters names its overloads (or the only one); nm's name@@VERSION names its symbol, another version is refused naming the real one",
  ignore: !CPP_READY,
  fn: () =>
    withTempRoot("casefile-spelling-cpp-", async ({ client, dir }) => {
      await Deno.writeTextFile(join(dir, "s.cc"), CPP);
      await Deno.writeTextFile(
        join(dir, "v.map"),
        "V1 { global: vfun; _ZN*; _ZNK*; local: *; };\n",
      );
      const lib = join(dir, "libs.so");
      await run("g++", [
        "-O1",
        "-shared",
        "-fPIC",
        `-Wl,--version-script=${join(dir, "v.map")}`,
        "-o",
        lib,
        join(dir, "s.cc"),
      ]);
      // nm -DC: "0000000000001109 T ns::S::f(int) const"; nm -D: "… T vfun@@V1".
      const demangled = new Map<string, string>();
      for (const line of (await run("nm", ["-DC", "--defined-only", lib])).trim().split("\n")) {
        const m = /^([0-9a-f]+) [TW] (.+?)(@@?\S+)?$/.exec(line);
        if (m) demangled.set(m[2]!, `0x${BigInt(`0x${m[1]}`).toString(16)}`);
      }
      const raw = (await run("nm", ["-D", "--defined-only", lib])).trim();
      assert.match(raw, / vfun@@V1$/m);
      const overloads = ["ns::S::f(int) const", "ns::S::f(double) const"];
      for (const o of overloads) assert.ok(demangled.has(o), [...demangled.keys()].join(", "));
      await ok(client, "open_binary", { path: lib });

      const ambiguous = await fails(client, "procedure_address", { procedure: "ns::S::f" });
      assert.match(ambiguous.message, /^2 procedures are named "ns::S::f": /);
      for (const o of overloads) {
        assert.ok(ambiguous.message.includes(`${demangled.get(o)} ${o}`), ambiguous.message);
      }
      const only = await ok(client, "procedure_address", { procedure: "ns::S::g" });
      assert.equal(only.result.address, demangled.get("ns::S::g(int)"));
      // The whole demangled name still names one.
      const whole = await ok(client, "procedure_address", { procedure: overloads[1] });
      assert.equal(whole.result.address, demangled.get(overloads[1]!));

      // nm -D's versioned spelling names the symbol; a version it does not carry is refused
      // with the ones it does.
      const versioned = await ok(client, "procedure_address", { procedure: "vfun@@V1" });
      assert.equal(versioned.result.address, demangled.get("vfun"));
      assert.equal(versioned.result.name, "vfun");
      const other = await fails(client, "procedure_address", { procedure: "vfun@@V2" });
      assert.equal(
        other.message,
        `No procedure is named "vfun@@V2": the symbol versions of "vfun" are vfun@@V1 (${
          demangled.get("vfun")
        }).`,
      );
      assert.equal(
        other.remediation.action,
        "Pass one of those versioned names, or the 0x address.",
      );
      // An unversioned name with a version nm never shows is refused naming the plain one.
      const plain = await fails(client, "procedure_address", { procedure: "ns@@V1" });
      assert.equal(plain.message, 'No procedure is named "ns@@V1".');
    }),
});

Deno.test("withoutParameters() strips the last parameter list and its qualifiers only", () => {
  assert.equal(withoutParameters("ns::S::f(int) const"), "ns::S::f");
  assert.equal(withoutParameters("Foo::operator()(int) const &"), "Foo::operator()");
  assert.equal(
    withoutParameters("std::function<void (int)>::operator()(int) const"),
    "std::function<void (int)>::operator()",
  );
  assert.equal(withoutParameters("f(void (*)(int))"), "f");
  assert.equal(withoutParameters("plain_c_name"), null);
  assert.equal(withoutParameters("(int)"), null);
});

// Legacy Rust symbols (their demangled path ends in a hash that nm -C leaves out): two
// monomorphisations share one path, as rustc writes them for a generic function.
const RUST_NAMES = {
  total: "_ZN4prog10total_area17hc557270ae7af01baE",
  maxA: "_ZN4prog11generic_max17h033b17c216dfae05E",
  maxB: "_ZN4prog11generic_max17h4d356734d418d89eE",
};
const RUST_LIKE = `
__attribute__((noinline)) int total(int x) __asm__("${RUST_NAMES.total}");
__attribute__((noinline)) int max_a(int x) __asm__("${RUST_NAMES.maxA}");
__attribute__((noinline)) long max_b(long x) __asm__("${RUST_NAMES.maxB}");
int total(int x) { return x * 7; }
int max_a(int x) { return x > 3 ? x : 3; }
long max_b(long x) { return x > 9 ? x : 9; }
int main(void) { return total(1) + max_a(2) + (int)max_b(3); }
`;

Deno.test({
  name:
    "a legacy Rust name with its hash (as a backtrace prints it) names its procedure; two of one path are told apart by their symbols",
  ignore: !hasProgram("cc") || !hasProgram("nm"),
  fn: () =>
    withTempRoot("casefile-rust-names-", async ({ client, dir }) => {
      await Deno.writeTextFile(join(dir, "r.c"), RUST_LIKE);
      const path = join(dir, "r");
      await run("cc", ["-O1", "-o", path, join(dir, "r.c")]);
      const at = new Map<string, string>();
      for (const line of (await run("nm", ["--defined-only", path])).trim().split("\n")) {
        const [address, , name] = line.trim().split(/\s+/);
        at.set(name!, `0x${BigInt(`0x${address}`).toString(16)}`);
      }
      // nm -C writes both generic_max symbols as the same path, and no hash.
      const shown = (await run("nm", ["-C", "--defined-only", path])).split("\n");
      assert.equal(shown.filter((l) => l.endsWith(" prog::generic_max")).length, 2);
      await ok(client, "open_binary", { path });

      const hashed = await ok(client, "procedure_address", {
        procedure: "prog::total_area::hc557270ae7af01ba",
      });
      assert.equal(hashed.result.address, at.get(RUST_NAMES.total));
      const other = await ok(client, "procedure_address", {
        procedure: "prog::generic_max::h4d356734d418d89e",
      });
      assert.equal(other.result.address, at.get(RUST_NAMES.maxB));

      const ambiguous = await fails(client, "procedure_address", {
        procedure: "prog::generic_max",
      });
      for (const name of [RUST_NAMES.maxA, RUST_NAMES.maxB]) {
        assert.ok(ambiguous.message.includes(`${at.get(name)} ${name}`), ambiguous.message);
      }
      assert.match(ambiguous.remediation.action, /mangled/);
      const byRaw = await ok(client, "procedure_address", { procedure: RUST_NAMES.maxA });
      assert.equal(byRaw.result.address, at.get(RUST_NAMES.maxA));
    }),
});

const LIBC = findLibc();

Deno.test({
  name:
    "a name libc holds at several addresses under different versions is refused with each address and its nm -D spelling, and every nm -D spelling of a function names nm's address",
  ignore: LIBC === null || !hasProgram("nm"),
  fn: async () => {
    const lib = LIBC!;
    // nm -D: "… T memcpy@@GLIBC_2.14" and "… T memcpy@GLIBC_2.2.5": one name, two functions.
    const spelled = new Map<string, string>();
    const byName = new Map<string, Set<string>>();
    for (const line of (await run("nm", ["-D", "--defined-only", lib])).split("\n")) {
      const m = /^([0-9a-f]+) [TiW] (([^@\s]+)@@?\S+)$/.exec(line);
      if (!m) continue;
      const address = `0x${BigInt(`0x${m[1]}`).toString(16)}`;
      spelled.set(m[2]!, address);
      byName.set(m[3]!, (byName.get(m[3]!) ?? new Set()).add(address));
    }
    const memcpy = [...spelled].filter(([name]) => /^memcpy@/.test(name));
    const addresses = [...byName.get("memcpy") ?? []].sort();
    assert.ok(addresses.length >= 2, `nm -D lists memcpy at ${addresses}`);
    // Names under several versions (at one address or more) and a stride of the others.
    const several = new Set([...byName].filter(([, at]) => at.size > 1).map(([name]) => name));
    const checked = [...spelled].filter(([name], k) =>
      several.has(name.slice(0, name.indexOf("@"))) || /@GLIBC_2\.2\.5$/.test(name) ||
      k % 97 === 0
    );
    assert.ok(checked.length > 50, `${checked.length} spellings checked`);
    await withClient({ roots: [lib.slice(0, lib.lastIndexOf("/"))] }, async (client) => {
      await ok(client, "open_binary", { path: lib });
      const refused = await fails(client, "procedure_address", { procedure: "memcpy" });
      assert.match(
        refused.message,
        new RegExp(`^${addresses.length} procedures are named "memcpy": `),
      );
      for (const [name, address] of memcpy) {
        assert.ok(refused.message.includes(`${address} (${name})`), refused.message);
      }
      assert.match(refused.message, /holds this very name at each of them under different/);
      assert.match(
        refused.remediation.action,
        /^Pass the 0x address, or the versioned name \(such as "memcpy@@?GLIBC_[0-9.]+"\)/,
      );
      for (const address of addresses) {
        const one = await ok(client, "procedure_address", { procedure: address });
        assert.equal(one.result.name, "memcpy");
      }
      for (const [name, address] of checked) {
        const one = await ok(client, "procedure_address", { procedure: name });
        assert.equal(one.result.address, address, name);
        // Aliases share an address (_exit, _Exit): the name is among the procedure's names.
        assert.ok(one.result.names.includes(name.slice(0, name.indexOf("@"))), name);
      }
      // A program's reference (nm -D of ls: "U memcpy@GLIBC_2.14") names the definition it binds
      // to, default (@@) or not: the one of that name and version in libc's nm -D.
      const ls = ["/usr/bin/ls", "/bin/ls"].find((p) => {
        try {
          return Deno.statSync(p).isFile;
        } catch {
          return false;
        }
      });
      if (ls !== undefined) {
        const references = (await run("nm", ["-D", "--undefined-only", ls])).split("\n")
          .map((line) => /^\s+U (\S+)@(\S+)$/.exec(line)).filter((m) => m !== null)
          .filter((m) => m![2]!.startsWith("GLIBC_"));
        assert.ok(references.length > 20, `${references.length} versioned references in ls`);
        let bound = 0;
        for (const m of references) {
          const [, name, version] = m!;
          const address = spelled.get(`${name}@@${version}`) ?? spelled.get(`${name}@${version}`);
          if (address === undefined) continue; // a data symbol, or one ld.so defines
          const one = await ok(client, "procedure_address", { procedure: `${name}@${version}` });
          assert.equal(one.result.address, address, `${name}@${version}`);
          bound++;
        }
        assert.ok(bound > 20, `${bound} references resolved`);
      }
      // Completion offers the versioned names where the plain one is shared, and each resolves.
      const completed = await client.complete({
        ref: { type: "ref/prompt", name: "investigate_feature" },
        argument: { name: "procedure", value: "memcpy" },
      });
      assert.deepEqual(
        [...completed.completion.values].sort(),
        memcpy.map(([name]) => name).sort(),
      );
      for (const value of completed.completion.values) {
        const one = await ok(client, "procedure_address", { procedure: value });
        assert.equal(one.result.address, spelled.get(value), value);
      }
      const wrong = await fails(client, "procedure_address", { procedure: "memcpy@@GLIBC_1.0" });
      for (const [name, address] of memcpy) {
        assert.ok(wrong.message.includes(`${name} (${address})`), wrong.message);
      }
    });
  },
});
