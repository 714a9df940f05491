/**
 * Process capture as a new user sets it up: a real server under narrow Deno
 * flags reports what capture lacks and the flag that grants it, leaves no
 * temporary directory behind when a grant is missing, refuses loader
 * variables with a clear message and runs a program against its own library
 * directory (library_path) under the same narrow flags; resource limits reach
 * the program; and the real jq 1.6 crash of the shared fixtures correlates to
 * its procedures, frame by frame, and is named by find_changed_behavior.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { hostFacts } from "../src/apps/capture/host.ts";
import { describePlan, planCapture } from "../src/apps/capture/plan.ts";
import { captureRequestSchema } from "../src/apps/capture/request.ts";
import { admitSample, chooseBackends, runCapture } from "../src/apps/capture/runner.ts";
import type { CapturePolicySettings } from "../src/apps/capture/settings.ts";
import { permissionFailure } from "../src/core/permissions.ts";
import { call, connect, hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { FIXTURES, LIBJQ, NEW, OLD } from "./helpers/jq_fixtures.ts";
import { childEnv, collectStderr, MOD_TS } from "./helpers/spawn.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const LINUX = Deno.build.os === "linux";
const CC = hasProgram("cc");
const HOST = await hostFacts();
const GDB = HOST.helpers.gdb.path !== null;
const PRLIMIT = HOST.helpers.prlimit.path !== null;
const DPKG = hasProgram("dpkg-deb");
const READELF = hasProgram("readelf");
const NETNS = HOST.networkNamespace.available;
const JQ_FIXTURES = await Deno.stat(OLD).then(() => Deno.stat(NEW)).then(() => true, () => false);
if (!CC) console.log("skip: cc is missing; the capture setup tests are ignored");
if (!GDB) console.log("skip: gdb is missing (apt-get install gdb); the jq crash tests are ignored");
if (!PRLIMIT) {
  console.log("skip: prlimit (util-linux) is missing; the resource-limit test is ignored");
}
if (!DPKG || !READELF) {
  console.log("skip: dpkg-deb or readelf is missing; the jq tests are ignored");
}
if (!JQ_FIXTURES) console.log("skip: the jq fixtures are absent; the jq tests are ignored");
const SOURCE = new URL("./fixtures/capture/scenario.c", import.meta.url).pathname;
const HELPERS = "sh,setsid,kill,strace,gdb,prlimit,unshare";

interface Scratch {
  dir: string;
  cleanup(): Promise<void>;
}

async function scratch(): Promise<Scratch> {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "casefile-setup-test-" }));
  return { dir, cleanup: () => Deno.remove(dir, { recursive: true }) };
}

/** Runs `body` with a fresh scratch directory, removed afterwards, also when `body` throws. */
async function withScratch(body: (s: { dir: string }) => Promise<void>): Promise<void> {
  await withTempDir((dir) => body({ dir }), { prefix: "casefile-setup-test-", realPath: true });
}

/** The scenario program compiled into `dir/bin`, with `dir/work` and `dir/lib`. */
async function scenario(dir: string): Promise<string> {
  for (const sub of ["bin", "work", "lib", "tmp"]) await Deno.mkdir(`${dir}/${sub}`);
  await run("cc", ["-g", "-O0", "-o", `${dir}/bin/scenario`, SOURCE]);
  return `${dir}/bin/scenario`;
}

/** A real server under exactly these Deno flags. */
async function server(
  flags: string[],
  args: string[],
  env: Record<string, string> = {},
): Promise<Client & { stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--no-prompt", ...flags, MOD_TS, ...args],
    env: childEnv(env),
    stderr: "pipe",
  });
  const stderr = collectStderr(transport);
  const client = new Client({ name: "capture-setup-tests", version: "0.0.0" });
  await client.connect(transport);
  return Object.assign(client, { stderr });
}

async function entries(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

/**
 * The capture policy these tests grant over scratch directory `dir`: programs
 * under `executables`, files under `dir`, no inherited environment, no
 * confirmation prompt, and the host network only where no network namespace
 * is available (unless `hostNetwork` says otherwise).
 */
function scratchPolicy(
  dir: string,
  options: { executables: string; hostNetwork?: boolean },
): CapturePolicySettings {
  return {
    executables: [options.executables],
    roots: [dir],
    environment: [],
    allowHostNetwork: options.hostNetwork ?? !NETNS,
    requireHumanConfirmation: false,
  };
}

function captureLine(status: Loose): Loose {
  return status.capabilities.find((c: Loose) => c.name === "process_capture");
}

Deno.test({
  name:
    "capture under a missing temp-dir read grant names --allow-read=<temp base> and leaves no casefile-capture-* directory (real subprocess)",
  ignore: !LINUX || !CC,
  fn: async () => {
    const s = await scratch();
    const t = await scratch();
    try {
      const exe = await scenario(s.dir);
      const temp = t.dir;
      const policy = [
        "--allow-process-launch",
        "--allow-capture",
        `${s.dir}/bin`,
        "--capture-root",
        s.dir,
        "--capture-allow-network",
      ];
      // Write to the temp base but not read: the narrowest mistake of the issue.
      const client = await server(
        [
          `--allow-read=${s.dir}`,
          `--allow-write=${temp}`,
          "--allow-env=TMPDIR",
          `--allow-run=${HELPERS},${exe}`,
        ],
        ["--root", `${s.dir}/bin`, ...policy],
        { TMPDIR: temp },
      );
      try {
        const status = (await ok(client, "binary_session")).result;
        const line = captureLine(status);
        assert.equal(line.available, false, line.reason);
        const missing = line.missing.filter((m: Loose) => m.required).map((m: Loose) => m.flag);
        assert.deepEqual(missing, [`--allow-read=${temp}`], JSON.stringify(line.missing));
        assert.match(line.enable_with, new RegExp(`--allow-read=${temp}`));
        // The server said so at start-up, on stderr, with the flag.
        assert.match(
          client.stderr(),
          new RegExp(`capture is configured but cannot run: restart with --allow-read=${temp}`),
        );
        // The start-up probe lists the same needs among the permissions.
        const probed = status.permissions.find((p: Loose) =>
          p.name === "read" && p.target === temp
        );
        assert.equal(probed.state, "not_granted");
        const { isError, structured } = await call(client, "capture_process_scenario", {
          approved: true,
          executable: exe,
          working_directory: `${s.dir}/work`,
          network_access: "host",
          arguments: ["write", `${s.dir}/work`, "1"],
        });
        assert.equal(isError, true);
        assert.equal(structured.error.code, "permission_required", structured.error.message);
        assert.match(structured.error.message, /temporary directory/);
        assert.match(structured.error.remediation.action, new RegExp(`--allow-read=${temp}`));
        assert.doesNotMatch(structured.error.remediation.action, /--allow-…/);
        assert.deepEqual(await entries(temp), [], "no casefile-capture-* directory is left behind");
        assert.deepEqual(await entries(`${s.dir}/work`), [], "nothing ran");
      } finally {
        await client.close();
      }
    } finally {
      await s.cleanup();
      await t.cleanup();
    }
  },
});

Deno.test({
  name:
    "LD_LIBRARY_PATH under a narrow --allow-run is refused with the flag named; library_path reaches the program under the same flags (real subprocess)",
  ignore: !LINUX || !CC,
  fn: async () => {
    await withScratch(async (s) => {
      const exe = await scenario(s.dir);
      const temp = `${s.dir}/tmp`;
      const client = await server(
        [
          `--allow-read=${s.dir}`,
          `--allow-write=${temp}`,
          "--allow-env=TMPDIR",
          `--allow-run=${HELPERS},${exe}`,
        ],
        [
          "--root",
          `${s.dir}/bin`,
          "--allow-process-launch",
          "--allow-capture",
          `${s.dir}/bin`,
          "--capture-root",
          s.dir,
          "--capture-env",
          "LD_LIBRARY_PATH",
          "--capture-allow-network",
        ],
        { TMPDIR: temp },
      );
      const base = {
        approved: true,
        executable: exe,
        working_directory: `${s.dir}/work`,
        network_access: "host",
        trace: "none",
        arguments: ["env", "LD_LIBRARY_PATH"],
      };
      try {
        const line = captureLine((await ok(client, "binary_session")).result);
        assert.equal(line.available, true, line.reason);
        assert.ok(
          line.missing.some((m: Loose) =>
            m.flag === "--allow-run" && /LD_LIBRARY_PATH/.test(m.what)
          ),
          JSON.stringify(line.missing),
        );
        const { isError, structured } = await call(client, "capture_process_scenario", {
          ...base,
          environment: { LD_LIBRARY_PATH: `${s.dir}/lib` },
        });
        assert.equal(isError, true);
        const error = structured.error;
        assert.equal(error.code, "permission_required");
        assert.match(error.message, /LD_LIBRARY_PATH/);
        assert.doesNotMatch(error.message, /Alternatively\.$/);
        assert.equal(error.details.flag, "--allow-run");
        assert.match(error.remediation.action, /library_path/);
        assert.deepEqual(await entries(temp), []);
        const out = await ok(client, "capture_process_scenario", {
          ...base,
          library_path: [`${s.dir}/lib`],
        });
        const text = out.result.frames.map((f: Loose) => f.data).join("");
        assert.match(text, new RegExp(`LD_LIBRARY_PATH=${s.dir}/lib\\n`));
        assert.deepEqual(out.result.manifest.scenario.library_path, [`${s.dir}/lib`]);
        assert.ok(out.result.manifest.environment_names.includes("LD_LIBRARY_PATH"));
        assert.deepEqual(await entries(temp), [], "the run's directory is removed after success");
        // A library directory outside the capture roots is refused.
        const outside = await call(client, "capture_process_scenario", {
          ...base,
          library_path: ["/usr/lib"],
        });
        assert.equal(outside.structured.error.code, "outside_approved_root");
      } finally {
        await client.close();
      }
    });
  },
});

Deno.test({
  name:
    "capture_process_scenario applies resource_limits to the program (its /proc/self/limits, a failing allocation) and records them",
  ignore: !LINUX || !CC || !PRLIMIT,
  fn: async () => {
    await withScratch(async (s) => {
      const exe = await scenario(s.dir);
      const policy = scratchPolicy(s.dir, { executables: `${s.dir}/bin` });
      await withClient({
        roots: [s.dir],
        allowProcessLaunch: true,
        capturePolicy: policy,
      }, async (client) => {
        const limits = {
          address_space_bytes: 256 * 1024 * 1024,
          cpu_seconds: 7,
          file_size_bytes: 1_000_000,
          open_files: 64,
        };
        const out = await ok(client, "capture_process_scenario", {
          approved: true,
          executable: exe,
          working_directory: `${s.dir}/work`,
          network_access: NETNS ? "none" : "host",
          trace: "none",
          arguments: ["limits", "alloc", String(512 * 1024 * 1024), "alloc", "1000000"],
          resource_limits: limits,
        });
        const text = out.result.frames.map((f: Loose) => f.data).join("");
        const row = (label: string): string[] =>
          (new RegExp(`^${label}\\s+(\\S+)\\s+(\\S+)`, "m").exec(text) ?? []).slice(1);
        assert.deepEqual(
          row("Max address space"),
          Array(2).fill(String(limits.address_space_bytes)),
        );
        assert.deepEqual(row("Max cpu time"), Array(2).fill(String(limits.cpu_seconds)));
        assert.deepEqual(row("Max file size"), Array(2).fill(String(limits.file_size_bytes)));
        assert.deepEqual(row("Max open files"), Array(2).fill(String(limits.open_files)));
        assert.match(text, /alloc 536870912 failed/, "an allocation past RLIMIT_AS fails");
        assert.match(text, /alloc 1000000 ok/, "one under it works");
        const backend = out.result.manifest.backend.resource_limits;
        assert.equal(backend.enforcement, "prlimit");
        assert.deepEqual(backend.applied, [
          `--as=${limits.address_space_bytes}:${limits.address_space_bytes}`,
          "--cpu=7:7",
          "--fsize=1000000:1000000",
          "--nofile=64:64",
        ]);
        assert.deepEqual(out.result.manifest.scenario.resource_limits, limits);
        // The plan a human confirms states them.
        const plan = await planCapture(
          captureRequestSchema.parse({
            approved: true,
            executable: exe,
            working_directory: `${s.dir}/work`,
            resource_limits: limits,
          }),
          { ...policy, allowHostNetwork: true },
        );
        assert.match(
          describePlan(plan),
          /Resource limits \(prlimit, every process of the run\): address space 268435456 bytes \(RLIMIT_AS\), CPU time 7 s \(RLIMIT_CPU\), file size 1000000 bytes \(RLIMIT_FSIZE\), open files 64 \(RLIMIT_NOFILE\)/,
        );
        // Without limits the program sees none of these.
        const free = await ok(client, "capture_process_scenario", {
          approved: true,
          executable: exe,
          working_directory: `${s.dir}/work`,
          network_access: NETNS ? "none" : "host",
          trace: "none",
          arguments: ["limits"],
        });
        const freeText = free.result.frames.map((f: Loose) => f.data).join("");
        assert.match(freeText, /^Max address space\s+unlimited/m);
        assert.equal(free.result.manifest.backend.resource_limits.enforcement, "none");
      });
    });
  },
});

Deno.test({
  name:
    "runCapture() failing after its directory exists (a stale plan) leaves no casefile-capture-* directory",
  ignore: !LINUX || !CC,
  fn: async () => {
    const s = await scratch();
    const saved = Deno.env.get("TMPDIR");
    try {
      const exe = await scenario(s.dir);
      const policy = scratchPolicy(s.dir, { executables: `${s.dir}/bin`, hostNetwork: true });
      Deno.env.set("TMPDIR", `${s.dir}/tmp`);
      const plan = await planCapture(
        captureRequestSchema.parse({
          approved: true,
          executable: exe,
          working_directory: `${s.dir}/work`,
          network_access: "host",
          arguments: ["write", `${s.dir}/work`, "1"],
        }),
        policy,
      );
      // The pinned file changes after planning: the run stops at its last look before launch.
      await Deno.writeFile(exe, new Uint8Array([0]), { append: true });
      await assert.rejects(runCapture(plan, chooseBackends(plan, HOST), HOST), /stale/);
      assert.deepEqual(await entries(`${s.dir}/tmp`), []);
      assert.deepEqual(await entries(`${s.dir}/work`), [], "nothing ran");
    } finally {
      if (saved === undefined) Deno.env.delete("TMPDIR");
      else Deno.env.set("TMPDIR", saved);
      await s.cleanup();
    }
  },
});

Deno.test("admitSample() records the program and its children under gdb, never gdb's helpers or a placeholder", () => {
  const scope = {
    debugged: true,
    leader: 100,
    programCommands: ["/opt/app/bin/tool"],
    programPids: new Set<number>(),
  };
  const member = (pid: number, ppid: number, state = "S") => ({ pid, ppid, state });
  // gdb forks a helper (its comm is still gdb's) before it starts the program.
  assert.equal(admitSample(member(101, 100), "gdb", scope), false);
  assert.equal(admitSample(member(102, 100), "/usr/bin/gdb", scope), false);
  // The startup shell's fork, before it execs the program, is not recorded; after, it is.
  assert.equal(admitSample(member(103, 100), "/bin/sh", scope), false);
  assert.equal(admitSample(member(103, 100), "/opt/app/bin/tool", scope), "program");
  assert.equal(admitSample(member(104, 103), "/bin/true", scope), true, "a child of the program");
  assert.equal(admitSample(member(105, 104), "/bin/cat", scope), true, "a grandchild");
  // A pid the cgroup listed but whose stat could not be read: no parent, no command.
  assert.equal(admitSample(member(106, 0, "?"), "?", scope), false);
  // Without a debugger every member is the run's, placeholders excepted.
  const plain = { ...scope, debugged: false, programPids: new Set<number>() };
  assert.equal(admitSample(member(101, 100), "strace", plain), true);
  assert.equal(admitSample(member(106, 0, "?"), "?", plain), false);
});

Deno.test("permissionFailure() turns Deno's real loader-variable refusal into a whole sentence naming --allow-run", async () => {
  // Deno's own message, from a Deno that has only a narrow --allow-run.
  const dir = await Deno.makeTempDir({ prefix: "casefile-loader-probe-" });
  const script = `${dir}/probe.ts`;
  await Deno.writeTextFile(
    script,
    'try { new Deno.Command("sh", { args: ["-c", "true"], env: { LD_LIBRARY_PATH: "/x" } }).outputSync(); } catch (e) { console.log(e.constructor.name + "|" + e.message); }\n',
  );
  const probe = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-run=sh", script],
    stdout: "piped",
    stderr: "inherit",
  }).output().finally(() => Deno.remove(dir, { recursive: true }));
  const [kind, message] = new TextDecoder().decode(probe.stdout).trim().split("|") as [
    string,
    string,
  ];
  assert.equal(kind, "NotCapable", message);
  const failure = permissionFailure(new Deno.errors.NotCapable(message));
  assert.equal(failure?.code, "permission_required");
  assert.equal(failure?.body.details?.flag, "--allow-run");
  assert.match(failure!.message, /LD_LIBRARY_PATH/);
  assert.doesNotMatch(failure!.message, /Alternatively\.?$/);
  assert.doesNotMatch(failure!.body.remediation.action, /--allow-…/);
});

// ------------------------------------------------------------------ the jq crash

/** jq and libjq of one fixture version, extracted with dpkg-deb. */
async function extractJq(dir: string, version: "u2" | "u3"): Promise<{ jq: string; lib: string }> {
  const root = join(dir, version);
  const debs = version === "u2" ? [OLD, OLD.replace("libjq1_", "jq_")] : [
    NEW,
    NEW.replace("libjq1_", "jq_"),
  ];
  for (const deb of debs) await run("dpkg-deb", ["-x", deb, root]);
  return { jq: join(root, "usr/bin/jq"), lib: join(root, "usr/lib/x86_64-linux-gnu") };
}

/** `readelf --debug-dump=frames`: the FDE ranges, the peer for containment. */
async function fdeRanges(path: string): Promise<[bigint, bigint][]> {
  const text = await run("readelf", ["--debug-dump=frames", path]);
  return [...text.matchAll(/FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g)].map((m) => [
    BigInt(`0x${m[1]}`),
    BigInt(`0x${m[2]}`),
  ]);
}

const UAF = '("a"*200000)*30 | length';
const REPEAT_START = 0xc7e0n;

Deno.test({
  name:
    "the jq 1.6 repeat crash correlates frame by frame (caller frames at pc-1), reaches 0xc7e0, and find_changed_behavior names it",
  ignore: !LINUX || !GDB || !DPKG || !READELF || !JQ_FIXTURES,
  fn: async () => {
    await withScratch(async (s) => {
      await Deno.mkdir(`${s.dir}/work`);
      const u2 = await extractJq(s.dir, "u2");
      const u3 = await extractJq(s.dir, "u3");
      const libjq = join(u2.lib, "libjq.so.1.0.4");
      const { client, close } = await connect({
        roots: [s.dir, FIXTURES],
        allowProcessLaunch: true,
        capturePolicy: scratchPolicy(s.dir, { executables: s.dir }),
      });
      const capture = (jq: { jq: string; lib: string }, extra: Record<string, unknown> = {}) =>
        ok(client, "capture_process_scenario", {
          approved: true,
          executable: jq.jq,
          working_directory: `${s.dir}/work`,
          network_access: NETNS ? "none" : "host",
          library_path: [jq.lib],
          arguments: ["-n", UAF],
          crash_backtrace: true,
          ...extra,
        });
      try {
        const crashed = await capture(u2);
        const crash = crashed.result.crash;
        assert.equal(crash?.signal, "SIGSEGV", JSON.stringify(crashed.result.exit));
        // Only the program is a process of the run: never gdb's own helpers, never "?".
        for (const sample of crashed.result.process_samples) {
          assert.equal(sample.command, u2.jq, JSON.stringify(crashed.result.process_samples));
          assert.notEqual(sample.parent_pid, 0);
        }
        assert.ok(crash.mappings.some((m: Loose) => m.path === libjq), "u2's libjq was loaded");
        await ok(client, "open_binary", { path: libjq, provider_id: "native" });
        const correlated = (await ok(client, "correlate_static_and_runtime", {
          capture_evidence_id: crashed.evidence_id,
        })).result;
        // Every frame comes back; those inside libjq are mapped, caller frames at pc-1.
        assert.equal(correlated.frames.length, crash.frames.length);
        const fdes = await fdeRanges(libjq);
        const inLib = correlated.frames.filter((f: Loose) => f.static_address !== null);
        assert.ok(inLib.length >= 3, JSON.stringify(correlated.frames));
        for (const f of correlated.frames) {
          const expected = BigInt(f.pc) - (f.index > 0 ? 1n : 0n);
          assert.equal(BigInt(f.lookup_address), expected);
        }
        for (const f of inLib) {
          const at = BigInt(f.static_address);
          const fde = fdes.find(([lo, hi]) => lo <= at && at < hi);
          assert.ok(fde, `readelf has an FDE around ${f.static_address}`);
          assert.equal(f.procedure?.address, `0x${fde[0].toString(16)}`, JSON.stringify(f));
        }
        const repeat = inLib.find((f: Loose) => BigInt(f.procedure.address) === REPEAT_START);
        assert.ok(repeat, `a frame maps to the repeat function: ${JSON.stringify(inLib)}`);
        // The default is the innermost frame inside libjq.
        assert.equal(correlated.frame.index, inLib[0].index);
        assert.equal(correlated.procedure.address, inLib[0].procedure.address);
        // The same library opened as a member of the package, in memory, is matched by content.
        await ok(client, "open_binary", { path: OLD });
        const page = (await ok(client, "inventory_artifact", { occurrence_limit: 500 })).result;
        const member = page.occurrences.items.find((o: Loose) => o.logical_path === LIBJQ);
        await ok(client, "open_binary", { occurrence_id: member.occurrence_id });
        const byMember = (await ok(client, "correlate_static_and_runtime", {
          capture_evidence_id: crashed.evidence_id,
        })).result;
        assert.deepEqual(
          byMember.frames.map((f: Loose) => f.procedure?.address ?? null),
          correlated.frames.map((f: Loose) => f.procedure?.address ?? null),
        );
        // The fixed library does not crash on the same input.
        const fixed = await capture(u3);
        assert.equal(fixed.result.exit.code, 0, JSON.stringify(fixed.result.exit));
        const compared = await ok(client, "compare_process_captures", {
          left_evidence_id: crashed.evidence_id,
          right_evidence_id: fixed.evidence_id,
        });
        assert.equal(compared.result.status, "changed");
        const changes = (await ok(client, "find_changed_behavior", {})).result;
        assert.deepEqual(changes.excluded, [], "a change under gdb is not 'incomplete'");
        const item = changes.items.find((i: Loose) =>
          i.comparison_evidence_id === compared.evidence_id
        );
        assert.ok(item.changed_dimensions.includes("exit"));
        assert.ok(item.undetermined_dimensions.includes("protocol"));
        const named = item.crash_procedures.flatMap((p: Loose) => [
          p.address,
          ...p.caller_procedures.map((c: Loose) => c.address),
        ]);
        assert.ok(named.includes("0xc7e0"), JSON.stringify(item.crash_procedures));
        assert.equal(item.crash_procedures[0].capture_evidence_id, crashed.evidence_id);
      } finally {
        await close();
      }
    });
  },
});

Deno.test({
  name:
    "an allocation crash under resource_limits (RLIMIT_AS) maps its return-address frames at pc-1: jv_mem_alloc as nm says",
  ignore: !LINUX || !GDB || !PRLIMIT || !DPKG || !READELF || !JQ_FIXTURES,
  fn: async () => {
    await withScratch(async (s) => {
      await Deno.mkdir(`${s.dir}/work`);
      const u2 = await extractJq(s.dir, "u2");
      const libjq = join(u2.lib, "libjq.so.1.0.4");
      await withClient({
        roots: [s.dir],
        allowProcessLaunch: true,
        capturePolicy: scratchPolicy(s.dir, { executables: s.dir }),
      }, async (client) => {
        const out = await ok(client, "capture_process_scenario", {
          approved: true,
          executable: u2.jq,
          working_directory: `${s.dir}/work`,
          network_access: NETNS ? "none" : "host",
          library_path: [u2.lib],
          arguments: ["-n", '"abc" * 1e9'],
          crash_backtrace: true,
          resource_limits: { address_space_bytes: 512 * 1024 * 1024 },
          timeout_ms: 60_000,
        });
        assert.equal(out.result.crash?.signal, "SIGABRT", JSON.stringify(out.result.exit));
        await ok(client, "open_binary", { path: libjq, provider_id: "native" });
        const correlated = (await ok(client, "correlate_static_and_runtime", {
          capture_evidence_id: out.evidence_id,
        })).result;
        const nm = await run("nm", ["-D", "--defined-only", libjq]);
        const alloc = /^([0-9a-f]+) T jv_mem_alloc$/m.exec(nm)?.[1];
        assert.ok(alloc, "nm names jv_mem_alloc");
        const frame = correlated.frames.find((f: Loose) => f.function === "jv_mem_alloc");
        assert.ok(frame, JSON.stringify(correlated.frames));
        assert.equal(frame.procedure?.address, `0x${BigInt(`0x${alloc}`).toString(16)}`);
        // Every libjq frame maps to a procedure: none falls off the end of a noreturn call.
        for (const f of correlated.frames.filter((x: Loose) => x.static_address !== null)) {
          assert.notEqual(f.procedure, null, JSON.stringify(f));
        }
        assert.notEqual(correlated.procedure, null, "the default frame has a procedure");
        assert.ok(
          correlated.frames.some((f: Loose) => f.procedure?.address === "0xc7e0"),
          "the repeat function is on the stack",
        );
      });
    });
  },
});
