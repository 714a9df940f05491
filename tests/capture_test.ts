/**
 * Process Capture v4: the request schema and cross-field rules, every
 * approval layer (each missing one proven by a marker file the program would
 * have written), real runs of a compiled scenario program (files, a child,
 * a connection, a crash correlated to the procedure that faulted, huge
 * output, a process ignoring SIGTERM, a fork bomb, a child that leaves its
 * session), symlink swaps after planning, secret redaction, the `capture`
 * completion family, comparison and changed-behaviour aggregation — through
 * the domain modules and through a real SDK Client.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createEvidence } from "../src/apps/evidence.ts";
import type { CapturePolicySettings } from "../src/apps/capture/settings.ts";
import { findChangedBehavior } from "../src/apps/capture/changes.ts";
import {
  type ComparisonStatus,
  deriveComparisonStatus,
  DIMENSIONS,
} from "../src/apps/capture/compare.ts";
import { parseGdbLog } from "../src/apps/capture/gdb.ts";
import { hostFacts } from "../src/apps/capture/host.ts";
import { planCapture } from "../src/apps/capture/plan.ts";
import {
  type CaptureRequest,
  captureRequestSchema,
  validateCrossFields,
} from "../src/apps/capture/request.ts";
import { buildCapture, commitment, validateCapture } from "../src/apps/capture/result.ts";
import { chooseBackends, runCapture } from "../src/apps/capture/runner.ts";
import { cString, parseTraces, splitArguments } from "../src/apps/capture/strace.ts";
import { alive, parseStat, readStats, shell } from "../src/apps/capture/tree.ts";
import { ToolFailure } from "../src/core/errors.ts";
import type { Connected, Loose } from "./helpers/in_memory.ts";
import { call, connect, fails, hasProgram, ok, run, withClient } from "./helpers/in_memory.ts";
import { childEnv, MOD_TS } from "./helpers/spawn.ts";

const CC = hasProgram("cc");
if (!CC) console.log("skip: cc is missing; the capture tests that run a program are ignored");
const HOST = await hostFacts();
const LINUX = Deno.build.os === "linux";
const STRACE = HOST.helpers.strace.path !== null && HOST.helpers.strace.granted;
const GDB = HOST.helpers.gdb.path !== null && HOST.helpers.gdb.granted;
if (!STRACE) console.log("skip: strace is missing; syscall-trace assertions are ignored");
if (!GDB) console.log("skip: gdb is missing; the crash-backtrace tests are ignored");
const NETNS = HOST.networkNamespace.available;
if (!NETNS) {
  console.log(`note: ${HOST.networkNamespace.reason}; captures use the host network`);
}
const HARD_LIMIT = HOST.pidsCgroup.parent !== null ||
  (!HOST.root && HOST.helpers.prlimit.path !== null);
if (!HARD_LIMIT) {
  console.log("skip: no pids cgroup and no RLIMIT_NPROC for root; the fork bomb test is ignored");
}
const READY = CC && LINUX;
const SOURCE = new URL("./fixtures/capture/scenario.c", import.meta.url).pathname;

/** A compiled scenario program in its own directory, with a working directory beside it. */
interface Fixture {
  dir: string;
  exe: string;
  work: string;
  policy: CapturePolicySettings;
  cleanup(): Promise<void>;
}

async function fixture(policy: Partial<CapturePolicySettings> = {}): Promise<Fixture> {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "casefile-capture-test-" }));
  const exe = `${dir}/bin/scenario`;
  await Deno.mkdir(`${dir}/bin`);
  await Deno.mkdir(`${dir}/work`);
  await run("cc", ["-g", "-O0", "-o", exe, SOURCE]);
  return {
    dir,
    exe,
    work: `${dir}/work`,
    policy: {
      executables: [`${dir}/bin`],
      roots: [dir],
      environment: [],
      allowHostNetwork: !NETNS,
      requireHumanConfirmation: false,
      ...policy,
    },
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}

/** The request fields every test shares. */
function request(f: Fixture, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    approved: true,
    executable: f.exe,
    working_directory: f.work,
    network_access: NETNS ? "none" : "host",
    ...extra,
  };
}

/** Live processes whose command line names `path` (zombies excluded); /proc is read through sh. */
async function survivors(path: string): Promise<number[]> {
  const listed = await shell('grep -a -l -F -e "$1" /proc/[0-9]*/cmdline 2>/dev/null', [path]);
  const pids = listed.split("\n").map((l) => /^\/proc\/(\d+)\//.exec(l)?.[1]).filter(Boolean)
    .map(Number);
  return (await readStats(pids)).filter(alive).map((s) => s.pid);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function parse(input: Record<string, unknown>): CaptureRequest {
  return captureRequestSchema.parse(input);
}

// ---------------------------------------------------------------- request

Deno.test("captureRequestSchema applies the documented defaults and refuses unknown keys", () => {
  const r = parse({ approved: true, executable: "/bin/true", working_directory: "/tmp" });
  assert.deepEqual(r.arguments, []);
  assert.equal(r.network_access, "none");
  assert.deepEqual(r.terminal, { columns: 80, rows: 24, scrollback: 1000 });
  assert.equal(r.timeout_ms, 30_000);
  assert.equal(r.idle_timeout_ms, 30_000);
  assert.equal(r.settle_ms, 100);
  assert.deepEqual(r.limits, {
    output_bytes: 1_000_000,
    frames: 10_000,
    files: 10_000,
    file_bytes: 10_000_000,
    processes: 1_000,
    protocol_events: 10_000,
    protocol_body_bytes: 1_000_000,
    connections: 100,
    filesystem_depth: 16,
  });
  assert.deepEqual(r.normalization, {
    paths: true,
    pids: true,
    ports: true,
    time_bucket_ms: 10,
    patterns: [],
  });
  assert.deepEqual(r.replay, {
    machine: null,
    http: [],
    websocket_messages: [],
    websocket_connections: [],
  });
  assert.equal(r.reactive, null);
  const base = { approved: true, executable: "/bin/true", working_directory: "/tmp" };
  for (
    const bad of [
      { ...base, bogus: 1 },
      { ...base, approved: false },
      { executable: "/bin/true", working_directory: "/tmp" },
      { ...base, executable: "bin/true" },
      { ...base, working_directory: "tmp" },
      { ...base, arguments: Array(257).fill("a") },
      { ...base, timeout_ms: 300_001 },
      { ...base, settle_ms: 10_001 },
      { ...base, limits: { output_bytes: 10_000_001 } },
      { ...base, limits: { surprise: 1 } },
      { ...base, environment: { "1BAD": "x" } },
      { ...base, network_access: "internet" },
      { ...base, terminal: { columns: 0 } },
      { ...base, checkpoints: [{ name: "-bad", trigger: { type: "settled" } }] },
    ]
  ) {
    assert.equal(
      captureRequestSchema.safeParse(bad).success,
      false,
      JSON.stringify(bad).slice(0, 80),
    );
  }
});

Deno.test("validateCrossFields() refuses every broken cross-field rule before anything runs", () => {
  const base = { approved: true, executable: "/bin/true", working_directory: "/tmp" };
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { events: [{ type: "input", at_ms: 5, data: "a" }, { type: "input", at_ms: 1, data: "b" }] },
      /comes before/,
    ],
    [
      { timeout_ms: 100, events: [{ type: "signal", at_ms: 200, signal: "SIGINT" }] },
      /after timeout_ms/,
    ],
    [{ secret_aliases: ["TOKEN"] }, /no value/],
    [{ environment: { HOME: "/x" } }, /reserved/],
    [{ inherit_environment: ["TERM"] }, /reserved/],
    [{ environment: { A: "1" }, inherit_environment: ["A"] }, /both set and inherited/],
    [{ checkpoints: [{ name: "before", trigger: { type: "settled" } }] }, /reserved/],
    [{
      checkpoints: [
        { name: "x", trigger: { type: "settled" } },
        { name: "x", trigger: { type: "root_exit" } },
      ],
    }, /unique/],
    [{
      replay: {
        machine: { initial_state: "a" },
        http: [{ method: "GET", path: "/", status: 200 }],
      },
    }, /cannot be combined/],
    [{ crash_backtrace: true, trace: "strace" }, /gdb/],
    [{ normalization: { patterns: [{ pattern: "(a)\\1", replacement: "" }] } }, /backreferences/],
    [{ normalization: { patterns: [{ pattern: "x(?=y)", replacement: "" }] } }, /lookahead/],
    [{ normalization: { patterns: [{ pattern: "(", replacement: "" }] } }, /invalid/],
  ];
  for (const [extra, message] of cases) {
    assert.throws(
      () => validateCrossFields(parse({ ...base, ...extra })),
      (error: unknown) =>
        error instanceof ToolFailure && error.code === "invalid_request" &&
        message.test(error.message),
      JSON.stringify(extra),
    );
  }
  const unsupported: Record<string, unknown>[] = [
    {
      command_shims: [{
        name: "git",
        routes: [{ arguments: [], outputs: [], termination: { type: "exit", code: 0 } }],
      }],
    },
    { replay: { http: [{ method: "GET", path: "/", status: 200 }] } },
    { reactive: { version: 1 } },
    { events: [{ type: "resize", at_ms: 0, columns: 10, rows: 10 }] },
  ];
  for (const extra of unsupported) {
    assert.throws(
      () => validateCrossFields(parse({ ...base, ...extra })),
      (error: unknown) => error instanceof ToolFailure && error.code === "capability_unavailable",
      JSON.stringify(extra),
    );
  }
  validateCrossFields(parse({
    ...base,
    environment: { TOKEN: "x" },
    secret_aliases: ["TOKEN"],
    events: [{ type: "input", at_ms: 0, data: "a" }, {
      type: "signal",
      at_ms: 0,
      signal: "SIGINT",
    }],
  }));
});

// ---------------------------------------------------------------- parsers

Deno.test("parseStat() reads a command that contains spaces and parentheses", () => {
  const stat = parseStat(
    "4242 (a) (b c) S 1 4242 4242 0 -1 4194304 1 0 0 0 0 0 0 0 20 0 1 0 98765 100 10 0",
  );
  assert.deepEqual(stat, {
    pid: 4242,
    comm: "a) (b c",
    state: "S",
    ppid: 1,
    pgid: 4242,
    sid: 4242,
    startTicks: 98765,
  });
  assert.equal(parseStat("garbage"), null);
});

Deno.test("parseTraces() reads strace -ff -y lines: files, writes, execs, connects, exits, faults", () => {
  const root = [
    '1700000000.100000 execve("/w/bin/s", ["/w/bin/s", "write", "a\\"b\\n"], 0x7ffd /* 3 vars */) = 0',
    '1700000000.101000 openat(AT_FDCWD</w/work>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache>',
    '1700000000.102000 openat(AT_FDCWD</w/work>, "out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</w/work/out.txt>',
    '1700000000.103000 openat(AT_FDCWD</w/work>, "missing", O_RDONLY) = -1 ENOENT (No such file or directory)',
    '1700000000.104000 unlinkat(AT_FDCWD</w/work>, "old", 0) = 0',
    '1700000000.105000 renameat2(AT_FDCWD</w/work>, "a", AT_FDCWD</w/work>, "b", 0) = 0',
    '1700000000.106000 connect(3<socket:[1]>, {sa_family=AF_INET, sin_port=htons(5555), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ENETUNREACH (Network is unreachable)',
    '1700000000.107000 connect(4<socket:[2]>, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
    '1700000000.108000 connect(5<socket:[3]>, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = -1 ENOENT (No such file or directory)',
    "1700000000.109000 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---",
    "1700000000.110000 +++ killed by SIGSEGV (core dumped) +++",
    "",
  ].join("\n");
  const child =
    '1700000000.104500 execve("/bin/true", ["true"], 0x7ffd /* 3 vars */) = 0\n1700000000.105500 +++ exited with 0 +++\n';
  const summary = parseTraces(new Map([[10, root], [11, child]]), 1700000000_000);
  assert.equal(summary.unparsed, 0);
  assert.deepEqual(summary.executions.map((e) => [e.pid, e.path, e.arguments, e.at_ms]), [
    [10, "/w/bin/s", ["/w/bin/s", "write", 'a"b\n'], 100],
    [11, "/bin/true", ["true"], 105],
  ]);
  assert.deepEqual(summary.files.map((f) => [f.operation, f.path, f.to, f.writes, f.result]), [
    ["open", "/etc/ld.so.cache", null, false, "ok"],
    ["create", "/w/work/out.txt", null, true, "ok"],
    ["open", "/w/work/missing", null, false, "ENOENT"],
    ["unlink", "/w/work/old", null, true, "ok"],
    ["rename", "/w/work/a", "/w/work/b", true, "ok"],
  ]);
  assert.deepEqual(summary.connections.map((c) => [c.family, c.address, c.port, c.result]), [
    ["AF_INET", "127.0.0.1", 5555, "ENETUNREACH"],
    ["AF_INET6", "::1", 443, "ok"],
    ["AF_UNIX", "/run/x.sock", null, "ENOENT"],
  ]);
  assert.deepEqual(summary.exits.map((e) => [e.pid, e.code, e.signal]), [[11, 0, null], [
    10,
    null,
    "SIGSEGV",
  ]]);
  assert.deepEqual(summary.signals.map((s) => [s.signal, s.code, s.fault_address]), [[
    "SIGSEGV",
    "SEGV_MAPERR",
    "0x0",
  ]]);
  assert.deepEqual(splitArguments('3</a,b>, {x=1, y="p,q"}, [1, 2], 16'), [
    "3</a,b>",
    '{x=1, y="p,q"}',
    "[1, 2]",
    "16",
  ]);
  assert.equal(cString('"\\303\\251\\x41\\t"'), "éA\t");
  assert.equal(cString('"abc"...'), "abc...");
});

Deno.test("parseGdbLog() reads the stop signal, frames with and without symbols, the map and $pc", () => {
  const report = parseGdbLog([
    "Program received signal SIGSEGV, Segmentation fault.",
    "0x0000555555555325 in fault_here (where=...) at scenario.c:32",
    "#0  0x0000555555555325 in fault_here (where=...) at scenario.c:32",
    "#1  0x000055555555533c in ?? ()",
    "#2  0x00007ffff7dfc24a in __libc_start_call_main (...) from /lib/libc.so.6",
    "process 4242",
    "          Start Addr           End Addr       Size     Offset  Perms  objfile",
    "      0x555555554000     0x555555555000     0x1000        0x0  r--p   /w/bin/s",
    "      0x7ffff7dd2000     0x7ffff7dd5000     0x3000        0x0  rw-p   ",
    "CASEFILE-PC 0x555555555325",
    "[Inferior 1 (process 4242) killed]",
  ].join("\n"));
  assert.equal(report.stopSignal, "SIGSEGV");
  assert.equal(report.pid, 4242);
  assert.equal(report.pc, "0x555555555325");
  assert.deepEqual(report.frames.map((f) => [f.index, f.function, f.source, f.library]), [
    [0, "fault_here", "scenario.c:32", null],
    [1, null, null, null],
    [2, "__libc_start_call_main", null, "/lib/libc.so.6"],
  ]);
  assert.deepEqual(report.mappings.map((m) => [m.start, m.offset, m.permissions, m.path]), [
    ["0x555555554000", "0x0", "r--p", "/w/bin/s"],
    ["0x7ffff7dd2000", "0x0", "rw-p", null],
  ]);
  assert.equal(parseGdbLog("[Inferior 1 (process 9) exited with code 012]").exitCode, 10);
  assert.equal(parseGdbLog("[Inferior 1 (process 9) exited normally]").exitCode, 0);
});

Deno.test("deriveComparisonStatus(): truncated, then changed, then unknown, then unchanged", () => {
  const all = (status: ComparisonStatus) =>
    Object.fromEntries(DIMENSIONS.map((d) => [d, status])) as Record<
      (typeof DIMENSIONS)[number],
      ComparisonStatus
    >;
  assert.equal(deriveComparisonStatus(all("unchanged")), "unchanged");
  assert.equal(deriveComparisonStatus({ ...all("unchanged"), shim: "unknown" }), "unknown");
  for (const s of ["added", "removed", "changed", "contradiction"] as const) {
    assert.equal(deriveComparisonStatus({ ...all("unknown"), exit: s }), "changed");
  }
  assert.equal(deriveComparisonStatus({ ...all("changed"), terminal: "truncated" }), "truncated");
});

// ---------------------------------------------------------------- plan and runner (domain)

Deno.test({
  name:
    "planCapture() refuses relative paths, roots outside the policy, and escapes through .. or symlinks",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    try {
      await Deno.mkdir(`${f.dir}/../casefile-outside-${crypto.randomUUID()}`).catch(() => {});
      Deno.symlinkSync("/tmp", `${f.dir}/escape`);
      Deno.symlinkSync("/bin/sh", `${f.dir}/bin/sh-link`);
      const refusals: [Record<string, unknown>, string, RegExp][] = [
        [{ working_directory: "/tmp" }, "outside_approved_root", /outside every capture root/],
        [
          { working_directory: `${f.dir}/../..` },
          "outside_approved_root",
          /outside every capture root/,
        ],
        [{ working_directory: `${f.dir}/escape` }, "outside_approved_root", /resolves to \/tmp/],
        [{ executable: "/bin/true" }, "permission_required", /--allow-capture \/bin\/true/],
        [{ executable: `${f.dir}/bin/sh-link` }, "permission_required", /resolves to .*not allow/],
        [{ filesystem_roots: ["/etc"] }, "outside_approved_root", /filesystem root \/etc/],
        [{ environment: { SECRET: "x" } }, "permission_required", /--capture-env SECRET/],
        [{ network_access: "host" }, "permission_required", /--capture-allow-network/],
      ];
      const strict = { ...f.policy, allowHostNetwork: false };
      for (const [extra, code, message] of refusals) {
        await assert.rejects(
          planCapture(parse(request(f, { network_access: "none", ...extra })), strict),
          (error: unknown) =>
            error instanceof ToolFailure && error.code === code &&
            message.test(`${error.message} ${error.body.remediation.action}`),
          JSON.stringify(extra),
        );
      }
      await assert.rejects(
        planCapture(parse(request(f)), { ...f.policy, executables: [] }),
        /not configured by the operator/,
      );
      const plan = await planCapture(parse(request(f)), f.policy);
      assert.equal(plan.executable.realPath, f.exe);
      assert.match(plan.executable.sha256, /^[0-9a-f]{64}$/);
      assert.ok(plan.environmentNames.includes("HOME"));
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "runCapture() refuses a plan whose executable symlink was swapped after planning; nothing runs",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    try {
      await Deno.copyFile(f.exe, `${f.dir}/bin/other`);
      await Deno.chmod(`${f.dir}/bin/other`, 0o755);
      await Deno.symlink(f.exe, `${f.dir}/bin/link`);
      const plan = await planCapture(
        parse(request(f, { executable: `${f.dir}/bin/link`, arguments: ["write", f.work, "1"] })),
        f.policy,
      );
      await Deno.remove(`${f.dir}/bin/link`);
      await Deno.symlink(`${f.dir}/bin/other`, `${f.dir}/bin/link`);
      await assert.rejects(
        runCapture(plan, chooseBackends(plan, HOST), HOST),
        (error: unknown) =>
          error instanceof ToolFailure && error.code === "plan_stale" &&
          /now resolves to/.test(error.message),
      );
      assert.equal(await exists(`${f.work}/out-0.txt`), false, "the program did not run");
      // Replacing the pinned file itself (same path, other bytes) is caught too.
      const plan2 = await planCapture(
        parse(request(f, { arguments: ["write", f.work, "1"] })),
        f.policy,
      );
      await Deno.writeFile(f.exe, new Uint8Array([0x7f, 0x45, 0x4c, 0x46]), { append: true });
      await assert.rejects(runCapture(plan2, chooseBackends(plan2, HOST), HOST), /stale/);
      assert.equal(await exists(`${f.work}/out-0.txt`), false, "the program did not run");
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "runCapture() in session mode catches a child that left the session, and ends it",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    try {
      const facts = { ...HOST, pidsCgroup: { parent: null, reason: "forced off by the test" } };
      const plan = await planCapture(
        parse(request(f, { arguments: ["escape", "sleep", "100"], settle_ms: 200, trace: "none" })),
        f.policy,
      );
      const backend = chooseBackends(plan, facts);
      assert.equal(backend.containment, "session");
      const observed = await runCapture(plan, backend, facts, { graceMs: 300 });
      assert.equal(observed.exit.reason, "exited");
      assert.equal(observed.exit.code, 0);
      assert.equal(observed.settlement.state, "alive_at_deadline");
      assert.equal(observed.settlement.cleanup_outcome, "cleaned");
      assert.equal(observed.cleanup.verified, true);
      assert.ok(
        observed.cleanup.signals.some((s) => s.signal === "SIGKILL"),
        "the escaped child ignored SIGTERM",
      );
      assert.deepEqual(await survivors(f.exe), []);
      const capture = buildCapture(plan, observed, {
        casefileVersion: "test",
        platform: "linux",
        architecture: "x",
      });
      assert.equal(validateCapture(capture).valid, true);
      assert.ok(capture.limitations.some((l) => /session and run token/.test(l)));
    } finally {
      await f.cleanup();
    }
  },
});

// ---------------------------------------------------------------- through the MCP client

function captureServer(
  f: Fixture,
  extra: Record<string, unknown> = {},
  clientOptions: ConstructorParameters<typeof Client>[1] = {},
): Promise<Connected> {
  return connect({
    roots: [f.dir],
    allowProcessLaunch: true,
    capturePolicy: f.policy,
    ...extra,
  }, clientOptions);
}

Deno.test({
  name:
    "capture_process_scenario runs nothing when a layer is missing, and says which and how to grant it",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    const marker = `${f.work}/out-0.txt`;
    const args = request(f, { arguments: ["write", f.work, "1"] });
    try {
      // Master switch off.
      {
        const { client, close } = await captureServer(f, { allowProcessLaunch: false });
        try {
          const error = await fails(client, "capture_process_scenario", args);
          assert.equal(error.code, "permission_required");
          assert.match(error.message, /starting processes is not allowed/);
          assert.match(error.remediation.action, /--allow-process-launch/);
        } finally {
          await close();
        }
      }
      // No operator capture policy.
      {
        await withClient({ roots: [f.dir], allowProcessLaunch: true }, async (client) => {
          const error = await fails(client, "capture_process_scenario", args);
          assert.equal(error.code, "permission_required");
          assert.match(error.message, /not configured by the operator/);
          assert.match(error.remediation.action, /--allow-capture PATH and --capture-root DIR/);
          const status = (await ok(client, "binary_session")).result;
          const capability = status.capabilities.find((c: Loose) => c.name === "process_capture");
          assert.equal(capability.available, false);
          assert.match(capability.enable_with, /--allow-capture PATH/);
        });
      }
      // Policy that does not name this executable.
      {
        await withClient({
          roots: [f.dir],
          allowProcessLaunch: true,
          capturePolicy: { ...f.policy, executables: ["/usr/bin/true"] },
        }, async (client) => {
          const error = await fails(client, "capture_process_scenario", args);
          assert.equal(error.code, "permission_required");
          assert.match(error.remediation.action, new RegExp(`--allow-capture ${f.exe}`));
        });
      }
      // Per-call approval missing or false.
      {
        const { client, close } = await captureServer(f);
        try {
          for (const approval of [{ approved: undefined }, { approved: false }]) {
            const error = await fails(client, "capture_process_scenario", { ...args, ...approval });
            assert.equal(error.code, "invalid_request");
            assert.match(error.message, /approved must be the literal true/);
          }
        } finally {
          await close();
        }
      }
      // Human confirmation required: a client without elicitation, then a human who declines.
      {
        const policy = { ...f.policy, requireHumanConfirmation: true };
        const plain = await connect({
          roots: [f.dir],
          allowProcessLaunch: true,
          capturePolicy: policy,
        });
        try {
          const error = await fails(plain.client, "capture_process_scenario", args);
          assert.equal(error.code, "permission_required");
          assert.equal(error.details.layer, "human_confirmation");
          assert.match(error.message, /does not support form elicitation/);
        } finally {
          await plain.close();
        }
        const asked: string[] = [];
        const human = await connect(
          { roots: [f.dir], allowProcessLaunch: true, capturePolicy: policy },
          { capabilities: { elicitation: { form: {} } } },
        );
        let answer: "decline" | "accept" | "accept_unconfirmed" = "decline";
        human.client.setRequestHandler(ElicitRequestSchema, (req) => {
          asked.push((req.params as { message: string }).message);
          return answer === "accept"
            ? { action: "accept", content: { confirm: true } }
            : answer === "accept_unconfirmed"
            ? { action: "accept", content: { confirm: false } }
            : { action: "decline" };
        });
        try {
          const error = await fails(human.client, "capture_process_scenario", args);
          assert.equal(error.details.layer, "human_confirmation");
          assert.match(error.message, /did not confirm/);
          assert.equal(asked.length, 1);
          assert.ok(asked[0]!.includes(f.exe), "the plan names the exact executable");
          assert.ok(asked[0]!.includes(f.work), "the plan names the working directory");
          assert.equal(await exists(marker), false, "nothing ran on any refusal");
          // The form accepted, but the box left unticked: that is not a confirmation.
          answer = "accept_unconfirmed";
          const unticked = await fails(human.client, "capture_process_scenario", args);
          assert.equal(unticked.code, "permission_required");
          assert.equal(unticked.details.layer, "human_confirmation");
          assert.equal(asked.length, 2);
          assert.equal(await exists(marker), false, "accept with confirm: false ran nothing");
          answer = "accept";
          const accepted = await ok(human.client, "capture_process_scenario", args);
          assert.equal(accepted.result.exit.code, 0);
          assert.equal(await exists(marker), true, "the confirmed capture ran");
        } finally {
          await human.close();
        }
      }
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "capture_process_scenario refuses a symlink swapped while the human was confirming the plan",
  ignore: !READY,
  fn: async () => {
    const f = await fixture({ requireHumanConfirmation: true });
    await Deno.copyFile(f.exe, `${f.dir}/bin/other`);
    await Deno.symlink(f.exe, `${f.dir}/bin/link`);
    const { client, close } = await captureServer(f, {}, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      await Deno.remove(`${f.dir}/bin/link`);
      await Deno.symlink(`${f.dir}/bin/other`, `${f.dir}/bin/link`);
      return { action: "accept", content: { confirm: true } };
    });
    try {
      const error = await fails(
        client,
        "capture_process_scenario",
        request(f, { executable: `${f.dir}/bin/link`, arguments: ["write", f.work, "1"] }),
      );
      assert.equal(error.code, "plan_stale");
      assert.equal(await exists(`${f.work}/out-0.txt`), false, "nothing ran");
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "capture_process_scenario without the Deno --allow-run grant for the program runs nothing (real subprocess)",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    const helpers = "sh,setsid,kill,strace,unshare,gdb,prlimit";
    const start = async (allowRun: string) => {
      const transport = new StdioClientTransport({
        command: Deno.execPath(),
        args: [
          "run",
          "--no-prompt",
          "--allow-read",
          "--allow-write",
          `--allow-run=${allowRun}`,
          MOD_TS,
          "--allow-process-launch",
          "--allow-capture",
          `${f.dir}/bin`,
          "--capture-root",
          f.dir,
          ...(NETNS ? [] : ["--capture-allow-network"]),
        ],
        env: childEnv(),
        stderr: "pipe",
      });
      const client = new Client({ name: "capture-tests", version: "0.0.0" });
      await client.connect(transport);
      return client;
    };
    try {
      const args = request(f, { arguments: ["write", f.work, "1"] });
      const refused = await start(helpers);
      try {
        const { isError, structured } = await call(refused, "capture_process_scenario", args);
        assert.equal(isError, true);
        assert.equal(structured.error.code, "permission_required");
        assert.equal(structured.error.details.layer, "deno_allow_run");
        assert.match(structured.error.remediation.action, new RegExp(`--allow-run=${f.exe}`));
        assert.equal(await exists(`${f.work}/out-0.txt`), false, "nothing ran");
      } finally {
        await refused.close();
      }
      // The same server with the grant runs it (through the kill program: Deno.kill needs an unrestricted grant).
      const granted = await start(`${helpers},${f.exe}`);
      try {
        const result = await ok(granted, "capture_process_scenario", args);
        assert.equal(result.result.exit.code, 0);
        assert.equal(await exists(`${f.work}/out-0.txt`), true);
      } finally {
        await granted.close();
      }
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "capture_process_scenario records files written, a child, a connection attempt and a crash as v4 Evidence",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    const { client, close } = await captureServer(f);
    const listener = NETNS ? null : Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener ? (listener.addr as Deno.NetAddr).port : 5555;
    try {
      const out = await ok(
        client,
        "capture_process_scenario",
        request(f, {
          arguments: ["write", f.work, "2", "spawn", "connect", String(port), "crash"],
        }),
      );
      const capture = out.result;
      assert.equal(validateCapture(capture).valid, true);
      assert.equal(capture.exit.reason, "exited");
      assert.equal(capture.exit.code, null);
      assert.equal(capture.exit.signal, "SIGSEGV");
      assert.equal(capture.crash.signal, "SIGSEGV");
      assert.equal(capture.manifest.pty_backend, "pipes");
      assert.equal(capture.cleanup.verified, true);
      const text = capture.frames.map((x: Loose) => x.data).join("");
      assert.match(text, /wrote 2 files/);
      assert.match(text, /child exited 0/);
      assert.match(text, /about to crash/);
      const created = capture.filesystem_effects.filter((e: Loose) => e.status === "created").map((
        e: Loose,
      ) => e.path);
      assert.deepEqual(created, [`${f.work}/out-0.txt`, `${f.work}/out-1.txt`]);
      assert.equal(capture.manifest.backend.network, NETNS ? "namespace" : "host");
      if (STRACE) {
        assert.equal(capture.syscalls.observed, true);
        const writes = capture.syscalls.files.filter((x: Loose) => x.writes).map((x: Loose) =>
          x.path
        );
        assert.ok(writes.includes(`${f.work}/out-0.txt`), JSON.stringify(writes));
        const programs = capture.syscalls.executions.map((x: Loose) => x.path);
        assert.deepEqual(programs, [f.exe, "/bin/true"]);
        const connection = capture.syscalls.connections[0];
        assert.deepEqual([connection.family, connection.address, connection.port], [
          "AF_INET",
          "127.0.0.1",
          port,
        ]);
        assert.equal(connection.result, NETNS ? "ENETUNREACH" : "ok");
        assert.equal(capture.crash.source, "strace");
        assert.equal(capture.crash.fault_address, "0x0");
      } else {
        assert.equal(capture.syscalls.observed, false);
        assert.ok(capture.residual_unknowns.some((u: Loose) => u.scope === "network"));
      }
      const record = JSON.parse(
        ((await client.readResource({ uri: out.evidence_uri })).contents[0] as { text: string })
          .text,
      );
      assert.equal(record.operation, "capture_process_scenario");
      assert.equal(record.predicate_type, "rea.process-capture/v4");
      assert.deepEqual(record.provider, {
        id: "rea-process",
        name: "Casefile process capture",
        version: "3",
      });
      assert.equal(record.authority, "controlled-replay");
      assert.equal(record.confidence, "observed");
      assert.equal(record.subject, null);
      assert.equal(record.environment.platform, Deno.build.os);
      assert.equal(record.environment.architecture, Deno.build.arch);
      assert.equal(record.environment.isolation, NETNS ? "process+network-namespace" : "process");
      assert.deepEqual(Object.keys(record.parameters).sort(), [
        "argument_count",
        "checkpoint_count",
        "command_shim_count",
        "event_count",
        "executable_name",
        "filesystem_root_count",
        "normalization",
      ]);
      assert.equal(record.parameters.executable_name, "scenario");
      const status = (await ok(client, "binary_session")).result;
      const capability = status.capabilities.find((c: Loose) => c.name === "process_capture");
      assert.equal(capability.available, true, capability.reason);
    } finally {
      listener?.close();
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "correlate_static_and_runtime ties a gdb backtrace of the crash to the procedure that faulted",
  ignore: !READY || !GDB,
  fn: async () => {
    const f = await fixture();
    const { client, close } = await captureServer(f);
    try {
      const out = await ok(
        client,
        "capture_process_scenario",
        request(f, { arguments: ["crash"], crash_backtrace: true }),
      );
      const crash = out.result.crash;
      assert.equal(crash.source, "gdb");
      assert.equal(crash.signal, "SIGSEGV");
      assert.equal(crash.frames[0].function, "fault_here");
      assert.ok(crash.mappings.some((m: Loose) => m.path === f.exe));
      await ok(client, "open_binary", { path: f.exe, provider_id: "native" });
      const correlated = await ok(client, "correlate_static_and_runtime", {
        capture_evidence_id: out.evidence_id,
      });
      const result = correlated.result;
      assert.equal(result.procedure.name, "fault_here");
      assert.equal(result.mapping.method, "memory-map");
      assert.equal(result.mapping.confidence, "derived");
      assert.equal(result.debugger_agrees, true);
      assert.equal(result.section, ".text");
      assert.ok(result.dossier.procedure, "the dossier comes with it");
      // The static address is the runtime one minus the load base: nm agrees.
      const nm = await run("nm", [f.exe]).catch(() => "");
      const line = nm.split("\n").find((l) => / T fault_here$/.test(l));
      if (line) {
        assert.equal(
          result.procedure.address,
          `0x${BigInt(`0x${line.split(" ")[0]}`).toString(16)}`,
        );
      }
      // A frame further up resolves to its own caller.
      const upper = await ok(client, "correlate_static_and_runtime", {
        capture_evidence_id: out.evidence_id,
        frame: 1,
      });
      assert.equal(upper.result.procedure.name, "crash");
      const record = JSON.parse(
        ((await client.readResource({ uri: correlated.evidence_uri })).contents[0] as {
          text: string;
        }).text,
      );
      assert.deepEqual(record.evidence_links, [out.evidence_id]);
      assert.equal(record.confidence, "derived");
      // Without a memory map, an explicit runtime address is taken at face value and marked inferred.
      const plain = await ok(
        client,
        "capture_process_scenario",
        request(f, { arguments: ["exit", "0"] }),
      );
      const refused = await fails(client, "correlate_static_and_runtime", {
        capture_evidence_id: plain.evidence_id,
      });
      assert.match(refused.message, /no crash/);
      const guessed = await ok(client, "correlate_static_and_runtime", {
        capture_evidence_id: plain.evidence_id,
        runtime_address: result.procedure.address,
      });
      assert.equal(guessed.result.mapping.method, "identity");
      assert.equal(guessed.result.procedure.name, "fault_here");
      const guessedRecord = JSON.parse(
        ((await client.readResource({ uri: guessed.evidence_uri })).contents[0] as { text: string })
          .text,
      );
      assert.equal(guessedRecord.confidence, "inferred");
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "capture_process_scenario truncates huge output at the cap, flags it, and drains the rest",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    const { client, close } = await captureServer(f);
    try {
      const out = await ok(
        client,
        "capture_process_scenario",
        request(f, {
          arguments: ["flood", "3000000"],
          limits: { output_bytes: 10_000 },
          trace: "none",
        }),
      );
      const capture = out.result;
      assert.equal(capture.exit.code, 0, "the program was not blocked by a full pipe");
      assert.equal(capture.streams.stdout.bytes, 3_000_000);
      assert.equal(capture.streams.stdout.recorded_bytes, 10_000);
      assert.equal(capture.streams.stdout.truncated, true);
      assert.equal(capture.truncated, true);
      assert.equal(capture.frames.map((x: Loose) => x.data).join("").length, 10_000);
      assert.ok(capture.residual_unknowns.some((u: Loose) => u.scope === "terminal"));
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "capture_process_scenario ends a process that ignores SIGTERM at the timeout, with SIGKILL, leaving nothing",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    const { client, close } = await captureServer(f);
    try {
      const started = performance.now();
      const out = await ok(
        client,
        "capture_process_scenario",
        request(f, {
          arguments: ["stubborn"],
          timeout_ms: 400,
        }),
      );
      const capture = out.result;
      assert.equal(capture.exit.reason, "timeout");
      assert.equal(capture.exit.code, null);
      assert.equal(capture.exit.signal, "SIGKILL");
      assert.deepEqual(capture.cleanup.signals.map((s: Loose) => s.signal).slice(0, 2), [
        "SIGTERM",
        "SIGKILL",
      ]);
      assert.equal(capture.settlement.cleanup_outcome, "cleaned");
      assert.ok(performance.now() - started < 20_000, "well before the program's own minute");
      assert.deepEqual(await survivors(f.exe), []);
      assert.ok(capture.residual_unknowns.some((u: Loose) => u.scope === "exit"));
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "capture_process_scenario contains a fork bomb inside the process limit and ends every process",
  ignore: !READY || !HARD_LIMIT,
  fn: async () => {
    const f = await fixture();
    const { client, close } = await captureServer(f);
    try {
      const out = await ok(
        client,
        "capture_process_scenario",
        request(f, {
          arguments: ["forkbomb"],
          timeout_ms: 1000,
          trace: "none",
          limits: { processes: 25 },
        }),
      );
      const capture = out.result;
      assert.equal(capture.manifest.backend.process_limit.reached, true);
      assert.notEqual(capture.manifest.backend.process_limit.enforcement, "monitor");
      assert.ok(capture.process_samples.length <= 25);
      assert.equal(capture.cleanup.verified, true);
      assert.deepEqual(await survivors(f.exe), []);
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "capture_process_scenario never records environment values, secrets or sensitive input",
  ignore: !READY,
  fn: async () => {
    const secret = "s3cr3t-Value-" + crypto.randomUUID();
    const visible = "plain-value-" + crypto.randomUUID();
    const typed = "typed-password-" + crypto.randomUUID();
    const f = await fixture({ environment: ["API_TOKEN", "MODE"] });
    const { client, close } = await captureServer(f);
    try {
      const out = await ok(
        client,
        "capture_process_scenario",
        request(f, {
          arguments: ["env", "API_TOKEN", "echo"],
          environment: { API_TOKEN: secret, MODE: visible },
          secret_aliases: ["API_TOKEN"],
          events: [
            { type: "input", at_ms: 10, data: `${typed}\n`, sensitive: true },
            { type: "input", at_ms: 20, data: `again ${secret}\n` },
          ],
        }),
      );
      const record = (await client.readResource({ uri: out.evidence_uri })).contents[0] as {
        text: string;
      };
      for (const text of [JSON.stringify(out), record.text]) {
        assert.equal(text.includes(secret), false, "the secret appears nowhere");
        assert.equal(text.includes(visible), false, "no environment value is recorded");
        assert.equal(text.includes(typed), false, "sensitive input is never recorded");
      }
      const capture = out.result;
      const output = capture.frames.map((x: Loose) => x.data).join("");
      assert.match(output, /API_TOKEN=\[secret:API_TOKEN\]/);
      assert.match(output, /again \[secret:API_TOKEN\]/);
      assert.deepEqual(capture.manifest.scenario.environment, {
        API_TOKEN: "[redacted]",
        MODE: "[redacted]",
      });
      assert.ok(capture.manifest.environment_names.includes("API_TOKEN"));
      assert.match(capture.interaction_events[0].data, /^\[sensitive input: \d+ bytes\]$/);
      assert.equal(capture.interaction_events.at(-1).type, "stdin_close");
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "the capture completion family offers only records that pass the full v4 validation",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    const { client, casefile, close } = await captureServer(f);
    try {
      const good = await ok(
        client,
        "capture_process_scenario",
        request(f, { arguments: ["exit", "3"], trace: "none" }),
      );
      const capture = good.result;
      const forge = async (normalized: unknown) =>
        (await casefile.ledger.record(
          await createEvidence({
            subject: null,
            provider: { id: "rea-process", name: "forged", version: "3" },
            operation: "capture_process_scenario",
            predicate_type: "rea.process-capture/v4",
            parameters: {},
            normalized_result: normalized,
          }),
        )).record.evidence_id;
      const bare = await forge({ schema_version: 4 });
      const v3 = await forge({ ...capture, schema_version: 3 });
      const tampered = structuredClone(capture);
      tampered.manifest.scenario.timeout_ms = 1;
      const tamperedId = await forge(tampered);
      const reordered = structuredClone(capture);
      reordered.filesystem_checkpoints.reverse();
      const reorderedId = await forge(reordered);
      const leaky = structuredClone(capture);
      leaky.cleanup.residual = [1234];
      const leakyId = await forge(leaky);
      assert.equal(validateCapture({ schema_version: 4 }).valid, false);
      const v3Check = validateCapture({ ...capture, schema_version: 3 });
      assert.equal(v3Check.valid, false);
      if (!v3Check.valid) assert.match(v3Check.reason, /recapture/);
      for (const id of [bare, v3, tamperedId, reorderedId, leakyId]) {
        assert.ok(casefile.ledger.get(id));
      }
      const answer = await client.complete({
        ref: { type: "ref/prompt", name: "trace_crash" },
        argument: { name: "capture_evidence_id", value: "" },
      });
      assert.deepEqual(answer.completion.values, [good.evidence_id]);
      const refused = await fails(client, "compare_process_captures", {
        left_evidence_id: good.evidence_id,
        right_evidence_id: tamperedId,
      });
      assert.equal(refused.details.reason, "invalid_capture");
      await ok(client, "close_binary");
      const empty = await client.complete({
        ref: { type: "ref/prompt", name: "trace_crash" },
        argument: { name: "capture_evidence_id", value: "" },
      });
      assert.deepEqual(empty.completion.values, []);
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name:
    "compare_process_captures and find_changed_behavior: same args unchanged, other args changed, incomplete excluded",
  ignore: !READY || !STRACE,
  fn: async () => {
    const f = await fixture();
    const { client, close } = await captureServer(f);
    try {
      const capture = (args: string[], extra: Record<string, unknown> = {}) =>
        ok(client, "capture_process_scenario", request(f, { arguments: args, ...extra }));
      const a = await capture(["spawn", "exit", "3"]);
      const b = await capture(["spawn", "exit", "3"]);
      const c = await capture(["spawn", "exit", "4"]);
      const same = await ok(client, "compare_process_captures", {
        left_evidence_id: a.evidence_id,
        right_evidence_id: b.evidence_id,
      });
      assert.equal(same.result.status, "unchanged", JSON.stringify(same.result.details));
      assert.equal(same.result.first_divergence, null);
      const other = await ok(client, "compare_process_captures", {
        left_evidence_id: a.evidence_id,
        right_evidence_id: c.evidence_id,
      });
      assert.equal(other.result.status, "changed");
      assert.equal(other.result.exit, "changed");
      assert.equal(other.result.terminal, "unchanged");
      assert.equal(other.result.first_divergence.dimension, "exit");
      assert.equal(deriveComparisonStatus(other.result), other.result.status);
      const record = JSON.parse(
        ((await client.readResource({ uri: other.evidence_uri })).contents[0] as { text: string })
          .text,
      );
      assert.equal(record.operation, "compare_process_captures");
      assert.equal(record.predicate_type, "rea.process-comparison/v4");
      assert.deepEqual(record.provider, {
        id: "rea-process",
        name: "Casefile process capture",
        version: "3",
      });
      assert.equal(record.confidence, "derived");
      assert.equal(record.authority, "analyst-inference");
      assert.equal(record.subject, null);
      assert.equal(record.parameters.left_evidence_id, a.evidence_id);
      assert.equal(record.parameters.right_evidence_id, c.evidence_id);
      assert.deepEqual([...record.evidence_links].sort(), [a.evidence_id, c.evidence_id].sort());
      // Incompatible contracts are refused.
      const slow = await capture(["exit", "3"], { timeout_ms: 20_000 });
      const incompatible = await fails(client, "compare_process_captures", {
        left_evidence_id: a.evidence_id,
        right_evidence_id: slow.evidence_id,
      });
      assert.equal(incompatible.details.reason, "incompatible");
      assert.match(incompatible.message, /timeout_ms/);
      // A truncated comparison is never "unchanged" and never aggregated.
      const t1 = await capture(["flood", "5000"], { limits: { output_bytes: 100 } });
      const t2 = await capture(["flood", "5000"], { limits: { output_bytes: 100 } });
      const truncated = await ok(client, "compare_process_captures", {
        left_evidence_id: t1.evidence_id,
        right_evidence_id: t2.evidence_id,
      });
      assert.equal(truncated.result.status, "truncated");
      // Untraced captures leave protocol and process unknown.
      const u1 = await capture(["exit", "0"], { trace: "none" });
      const u2 = await capture(["exit", "0"], { trace: "none" });
      const unknown = await ok(client, "compare_process_captures", {
        left_evidence_id: u1.evidence_id,
        right_evidence_id: u2.evidence_id,
      });
      assert.equal(unknown.result.status, "unknown");
      const changes = await ok(client, "find_changed_behavior", {});
      const included = changes.result.items.map((e: Loose) => e.comparison_evidence_id).sort();
      assert.deepEqual(included, [same.evidence_id, other.evidence_id].sort());
      assert.equal(changes.result.changed_count, 1);
      assert.equal(changes.result.unchanged_count, 1);
      assert.equal(changes.result.by_dimension.exit, 1);
      const excluded = Object.fromEntries(
        changes.result.excluded.map((e: Loose) => [e.evidence_id, e.reason]),
      );
      assert.match(excluded[truncated.evidence_id], /incomplete in terminal/);
      assert.match(excluded[unknown.evidence_id], /incomplete in .*protocol/);
      const aggregate = JSON.parse(
        ((await client.readResource({ uri: changes.evidence_uri })).contents[0] as { text: string })
          .text,
      );
      assert.deepEqual([...aggregate.evidence_links].sort(), included);
      // A comparison whose stored status does not derive from its dimensions is excluded.
      const forged = await createEvidence({
        ...record,
        normalized_result: { ...record.normalized_result, status: "unchanged" },
      });
      const lookup = (id: string) => (id === forged.evidence_id ? forged : undefined);
      const verdict = findChangedBehavior([forged], lookup);
      assert.equal(verdict.included.length, 0);
      assert.match(verdict.excluded[0]!.reason, /does not derive/);
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "capture_process_scenario cancelled by the client ends the whole tree and records nothing",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    const { client, casefile, close } = await captureServer(f);
    try {
      const controller = new AbortController();
      const pending = client.callTool(
        { name: "capture_process_scenario", arguments: request(f, { arguments: ["stubborn"] }) },
        undefined,
        { signal: controller.signal },
      );
      // Wait until the program runs, then cancel.
      for (let i = 0; i < 200 && (await survivors(f.exe)).length === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.notDeepEqual(await survivors(f.exe), [], "the program started");
      controller.abort();
      await assert.rejects(pending);
      let left = await survivors(f.exe);
      for (let i = 0; i < 200 && left.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
        left = await survivors(f.exe);
      }
      assert.deepEqual(left, [], "nothing survives the cancellation");
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(
        casefile.ledger.list().filter((r) => r.operation === "capture_process_scenario").length,
        0,
      );
    } finally {
      await close();
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "validateCapture() rejects a capture whose commitment no longer matches its scenario",
  ignore: !READY,
  fn: async () => {
    const f = await fixture();
    try {
      const plan = await planCapture(
        parse(request(f, { arguments: ["exit", "0"], trace: "none" })),
        f.policy,
      );
      const observed = await runCapture(plan, chooseBackends(plan, HOST), HOST);
      const capture = buildCapture(plan, observed, {
        casefileVersion: "t",
        platform: "linux",
        architecture: "x",
      });
      assert.equal(validateCapture(capture).valid, true);
      assert.equal(capture.manifest.full_scenario_sha256, commitment(capture.manifest.scenario));
      const cases: [string, (c: Loose) => void][] = [
        ["scenario", (c) => (c.manifest.scenario.arguments = ["exit", "1"])],
        ["executable", (c) => (c.manifest.executable_sha256 = "0".repeat(64))],
        ["sequence", (c) => c.interaction_events[0] && (c.interaction_events[0].sequence = 5)],
        ["times", (c) => (c.manifest.started_at = "2999-01-01T00:00:00.000Z")],
        ["exit", (c) => (c.exit = { code: 0, signal: null, reason: "timeout" })],
        ["extra key", (c) => (c.surprise = true)],
        ["env value", (c) => (c.manifest.scenario.environment = { A: "visible" })],
      ];
      for (const [name, damage] of cases) {
        const copy = structuredClone(capture) as Loose;
        damage(copy);
        assert.equal(validateCapture(copy).valid, false, name);
      }
    } finally {
      await f.cleanup();
    }
  },
});
