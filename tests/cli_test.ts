/**
 * The command line: flag parsing in-process (`parseCli`, `parseHostPort`,
 * `runCli` for the paths that return before any transport starts), and
 * `mod.ts` as a subprocess for the real exit codes and the no-permission case.
 */

import { gateOptions } from "../src/core/policy/compile.ts";
import assert from "node:assert/strict";
import {
  type CliConfig,
  httpPrincipal,
  parseCli,
  parseHostPort,
  runCli,
  USAGE,
  UsageError,
} from "../src/cli.ts";
import type { AppsWorkbenchModule } from "../src/apps/workbench.ts";
import { type CapturePolicySettings, emptyCapturePolicy } from "../src/apps/capture/settings.ts";

/** The capture policy the apps workbench was configured with by the flags. */
function capturePolicyOf(config: CliConfig): Readonly<CapturePolicySettings> {
  const apps = config.workbenches.find((m) => m.name === "apps") as AppsWorkbenchModule;
  return apps.settings.capturePolicy;
}
import { LOG_LEVELS } from "../src/core/log.ts";
import { VERSION } from "../src/version.ts";
import {
  childEnv,
  DENO_JSON,
  denoArgs,
  initializeRequest,
  ServerProcess,
} from "./helpers/spawn.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const decoder = new TextDecoder();

/** The `version` field of deno.json. */
async function denoJsonVersion(): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(DENO_JSON)) as { version?: unknown };
  assert.equal(typeof config.version, "string", "deno.json has a version");
  return config.version as string;
}

/**
 * Runs `runCli(args)` in-process with `Deno.stdout`/`Deno.stderr` captured.
 * Only for arguments that make runCli return before it starts a transport.
 */
async function runCaptured(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = Deno.stdout.writeSync;
  const err = Deno.stderr.writeSync;
  let stdout = "";
  let stderr = "";
  Deno.stdout.writeSync = (bytes: Uint8Array): number => {
    stdout += decoder.decode(bytes);
    return bytes.length;
  };
  Deno.stderr.writeSync = (bytes: Uint8Array): number => {
    stderr += decoder.decode(bytes);
    return bytes.length;
  };
  try {
    const code = await runCli(args);
    return { code, stdout, stderr };
  } finally {
    Deno.stdout.writeSync = out;
    Deno.stderr.writeSync = err;
  }
}

/** Runs `mod.ts` with `args` as a subprocess (no permissions) and collects everything. */
async function runModTs(
  args: string[],
  permissions: { allowNet?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: denoArgs(args, permissions),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: childEnv(),
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

// ---------------------------------------------------------------- in-process

Deno.test("runCli --help prints the usage to stdout and exits 0", async () => {
  for (const flag of ["--help", "-h"]) {
    const { code, stdout, stderr } = await runCaptured([flag]);
    assert.equal(code, 0, flag);
    assert.equal(stdout, USAGE, flag);
    assert.equal(stderr, "", flag);
  }
  assert.match(USAGE, /^casefile \S+ — /);
  for (const flag of ["--http", "--token", "--root", "--read-only", "--log-level", "--version"]) {
    assert.ok(USAGE.includes(flag), `usage mentions ${flag}`);
  }
});

Deno.test("runCli --version prints 'casefile <version>' equal to deno.json's version and exits 0", async () => {
  const version = await denoJsonVersion();
  assert.equal(VERSION, version, "src/version.ts VERSION equals deno.json version");
  for (const flag of ["--version", "-V"]) {
    const { code, stdout, stderr } = await runCaptured([flag]);
    assert.equal(code, 0, flag);
    assert.equal(stdout, `casefile ${version}\n`, flag);
    assert.equal(stderr, "", flag);
  }
});

Deno.test("runCli rejects an unknown flag with the usage on stderr and exit code 2", async () => {
  const { code, stdout, stderr } = await runCaptured(["--bogus"]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.match(stderr, /^casefile: .*--bogus/);
  assert.ok(stderr.endsWith(USAGE), "stderr ends with the usage");
});

Deno.test("runCli rejects a positional argument with exit code 2", async () => {
  const { code, stdout, stderr } = await runCaptured(["/usr/bin/ls"]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.match(stderr, /^casefile: .*\/usr\/bin\/ls/);
  assert.ok(stderr.endsWith(USAGE));
});

Deno.test("runCli rejects a bad --log-level with exit code 2 and lists the levels", async () => {
  const { code, stdout, stderr } = await runCaptured(["--log-level", "loud"]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.match(stderr, /--log-level must be one of debug, info, .*; got loud/);
});

Deno.test("runCli rejects a bad --http value with exit code 2 before listening", async () => {
  for (const bad of ["host:", "99999", "a:b:c"]) {
    const { code, stdout, stderr } = await runCaptured(["--http", bad]);
    assert.equal(code, 2, bad);
    assert.equal(stdout, "", bad);
    assert.ok(stderr.includes(`--http expects [HOST:]PORT`), `${bad}: ${stderr}`);
  }
});

Deno.test("parseHostPort accepts PORT, HOST:PORT, [IPv6]:PORT and port 0", () => {
  const cases: [string, { hostname: string; port: number }][] = [
    ["8787", { hostname: "127.0.0.1", port: 8787 }],
    ["127.0.0.1:8787", { hostname: "127.0.0.1", port: 8787 }],
    ["[::1]:9000", { hostname: "::1", port: 9000 }],
    ["0", { hostname: "127.0.0.1", port: 0 }],
    ["localhost:65535", { hostname: "localhost", port: 65535 }],
    ["0.0.0.0:1", { hostname: "0.0.0.0", port: 1 }],
  ];
  for (const [text, expected] of cases) assert.deepEqual(parseHostPort(text), expected, text);
});

Deno.test("parseHostPort rejects host:, 99999, a:b:c and other malformed values with a UsageError", () => {
  for (
    const bad of ["host:", "99999", "a:b:c", "", ":8787", "65536", "-1", "[::1]", "::1:80", "8787x"]
  ) {
    assert.throws(() => parseHostPort(bad), UsageError, JSON.stringify(bad));
  }
});

Deno.test("parseCli maps --http forms into the config and rejects bad ones with a UsageError", () => {
  assert.deepEqual(parseCli(["--http", "8787"]).http, { hostname: "127.0.0.1", port: 8787 });
  assert.deepEqual(parseCli(["--http", "127.0.0.1:8787"]).http, {
    hostname: "127.0.0.1",
    port: 8787,
  });
  assert.deepEqual(parseCli(["--http", "[::1]:9000"]).http, { hostname: "::1", port: 9000 });
  assert.deepEqual(parseCli(["--http", "0"]).http, { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseCli(["--http=127.0.0.1:0"]).http, { hostname: "127.0.0.1", port: 0 });
  for (const bad of ["host:", "99999", "a:b:c"]) {
    assert.throws(() => parseCli(["--http", bad]), UsageError, bad);
  }
  assert.throws(() => parseCli(["--http"]), UsageError, "--http without a value");
});

Deno.test("parseCli defaults to stdio with no roots, no token and log level warning", () => {
  const { workbenches, policy, ...config } = parseCli([]);
  assert.deepEqual(workbenches.map((m) => m.name), ["apps", "cloud", "privacy"]);
  assert.equal(policy?.name, "standard", "the default policy");
  assert.deepEqual(config, {
    http: null,
    token: undefined,
    tokens: [],
    allowedHosts: [],
    allowedOrigins: [],
    sessions: { maxSessions: 64, maxSessionsPerPrincipal: 16, idleTimeoutMs: 900_000 },
    server: {
      roots: [],
      readOnly: false,
      allowProcessLaunch: false,
      allowFileWrites: false,
      logLevel: "warning",
      ...gateOptions(policy!),
    },
    help: false,
    version: false,
  });
});

Deno.test("parseCli collects repeatable --root, --allow-host and --allow-origin and the other flags", () => {
  const config = parseCli([
    "--root",
    "/usr/bin",
    "--root=/usr/lib",
    "--allow-host",
    "a.test",
    "--allow-host",
    "b.test:80",
    "--allow-origin",
    "http://a.test",
    "--token",
    "s3cret",
    "--read-only",
    "--allow-process-launch",
    "--allow-file-writes",
    "--log-level",
    "debug",
  ]);
  assert.deepEqual(config.server, {
    roots: ["/usr/bin", "/usr/lib"],
    readOnly: true,
    allowProcessLaunch: true,
    allowFileWrites: true,
    logLevel: "debug",
    ...gateOptions(config.policy!),
  });
  assert.deepEqual(config.allowedHosts, ["a.test", "b.test:80"]);
  assert.deepEqual(config.allowedOrigins, ["http://a.test"]);
  assert.equal(config.token, "s3cret");
});

Deno.test("parseCli compiles --policy into the gate's options and maps --token TOKEN=ID:ROLES to principals", () => {
  const config = parseCli([
    "--policy",
    "strict",
    "--token",
    "first",
    "--token",
    "second=alice:admin,lead",
    "--token",
    "third=:analyst",
  ]);
  assert.equal(config.policy?.name, "strict");
  assert.equal(config.server.policyRules?.length, 1);
  assert.equal(config.server.policyTransforms?.length, 1);
  assert.ok((config.server.policyInputTransforms?.length ?? 0) >= 2, "guard and reversal");
  assert.equal(config.token, "first");
  assert.deepEqual(config.tokens, [
    { token: "first", roles: [] },
    { token: "second", principal: "alice", roles: ["admin", "lead"] },
    { token: "third", roles: ["analyst"] },
  ]);
  assert.deepEqual(httpPrincipal("second", config.tokens), {
    id: "alice",
    kind: "token",
    roles: ["admin", "lead"],
  });
  assert.match(httpPrincipal("third", config.tokens).id, /^token:[0-9a-f]{12}$/);
  assert.equal(parseCli([]).policy?.name, "standard", "no --policy: standard");
  assert.deepEqual(
    parseCli(["--policy", "open"]).server.policyTransforms,
    [],
    "open transforms nothing",
  );
  assert.throws(() => parseCli(["--policy", "nope"]), /--policy: Unknown policy "nope"/);
  assert.throws(() => parseCli(["--token", "=x:y"]), /--token must not be empty/);
});

Deno.test("parseCli accepts every MCP log level and rejects a positional or unknown flag", () => {
  for (const level of LOG_LEVELS) {
    assert.equal(parseCli(["--log-level", level]).server.logLevel, level);
  }
  assert.throws(() => parseCli(["--log-level", "WARNING"]), UsageError);
  assert.throws(() => parseCli(["--log-level", "trace"]), UsageError);
  assert.throws(() => parseCli(["serve"]), UsageError);
  assert.throws(() => parseCli(["--bogus"]), UsageError);
  assert.throws(() => parseCli(["--read-only=yes"]), UsageError);
});

// ---------------------------------------------------------------- subprocess

const exitCases: { args: string[]; code: number; stream: "stdout" | "stderr"; shows: RegExp }[] = [
  { args: ["--help"], code: 0, stream: "stdout", shows: /^casefile \S+ — .*\n\nUsage: casefile/ },
  { args: ["--bogus"], code: 2, stream: "stderr", shows: /--bogus[\s\S]*Usage: casefile/ },
  { args: ["positional"], code: 2, stream: "stderr", shows: /positional[\s\S]*Usage: casefile/ },
  { args: ["--log-level", "loud"], code: 2, stream: "stderr", shows: /--log-level must be one of/ },
  { args: ["--http", "a:b:c"], code: 2, stream: "stderr", shows: /--http expects \[HOST:\]PORT/ },
];

for (const { args, code, stream, shows } of exitCases) {
  Deno.test(`mod.ts ${args.join(" ")} exits ${code} with its message on ${stream} only`, async () => {
    const result = await runModTs(args);
    assert.equal(result.code, code, result.stderr);
    assert.match(result[stream], shows);
    assert.equal(result[stream === "stdout" ? "stderr" : "stdout"], "");
  });
}

Deno.test("mod.ts --version prints 'casefile <deno.json version>' and exits 0", async () => {
  const result = await runModTs(["--version"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `casefile ${await denoJsonVersion()}\n`);
  assert.equal(result.stderr, "");
});

Deno.test("mod.ts --http without --allow-net exits 1 naming the --allow-net flag", async () => {
  const result = await runModTs(["--http", "127.0.0.1:0"]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.match(
    result.stderr,
    /cannot listen on 127\.0\.0\.1:0: .*grant --allow-net=127\.0\.0\.1:0/,
  );
});

Deno.test("mod.ts --http on a port already in use exits 1 naming the address", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  const result = await runModTs(["--http", `127.0.0.1:${port}`], { allowNet: "127.0.0.1" });
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "");
  assert.match(
    result.stderr,
    new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: .*in use`, "i"),
  );
});

Deno.test("mod.ts over stdio without --allow-read initializes and reports open_binary as a tool error naming --allow-read", async () => {
  // No --allow-read at all, although --root /usr/bin is given.
  await using server = ServerProcess.spawn(["--root", "/usr/bin"]);
  const init = await server.request(
    1,
    "initialize",
    initializeRequest().params as Record<string, unknown>,
  );
  assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, "casefile");
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });

  const opened = await server.request(2, "tools/call", {
    name: "open_binary",
    arguments: { path: "/usr/bin/ls" },
  });
  assert.equal(opened.error, undefined, "a tool error, not a protocol error");
  const result = opened.result as {
    isError?: boolean;
    structuredContent?: {
      error?: {
        code: string;
        category: string;
        message: string;
        remediation: { action: string; restart_required: boolean };
        details?: { flag?: string };
      };
    };
    content: { type: string; text: string }[];
  };
  assert.equal(result.isError, true);
  const error = result.structuredContent?.error;
  assert.ok(error, "structuredContent.error is present");
  assert.equal(error.code, "permission_required");
  assert.equal(error.category, "permission_required");
  assert.equal(error.remediation.restart_required, true);
  assert.match(error.remediation.action, /--allow-read=\/usr\/bin/);
  // Granting the named flag must be enough for this file: the root or the file itself.
  assert.match(error.details?.flag ?? "", /^--allow-read=\/usr\/bin(\/ls)?$/);
  assert.equal(JSON.parse(result.content[0]?.text ?? "{}").error.code, "permission_required");

  // binary_session explains the missing capability and names the flag for the root.
  const status = await server.request(3, "tools/call", { name: "binary_session", arguments: {} });
  const session = (status.result as {
    structuredContent: {
      result: {
        capabilities: { name: string; available: boolean; enable_with: string | null }[];
        permissions: { name: string; target: string | null; state: string; flag: string }[];
      };
    };
  }).structuredContent.result;
  const openTargets = session.capabilities.find((c) => c.name === "open_targets");
  assert.deepEqual(
    { available: openTargets?.available, enable_with: openTargets?.enable_with },
    { available: false, enable_with: "--allow-read=/usr/bin" },
  );
  assert.deepEqual(
    session.permissions.map(({ name, target, flag }) => ({ name, target, flag })),
    [{ name: "read", target: "/usr/bin", flag: "--allow-read=/usr/bin" }],
  );
  // Under --no-prompt Deno reports an ungranted permission as "prompt" (it is refused, never asked).
  assert.ok(["not_granted", "denied"].includes(session.permissions[0]?.state ?? ""));

  // Still alive: the next request is answered.
  const ping = await server.request(4, "ping");
  assert.deepEqual(ping.result, {});
  assert.equal(server.exited, false);

  await server.closeStdin();
  const exit = await server.waitExit(5_000);
  assert.equal(exit.code, 0, server.stderr.text());
});

Deno.test("parseCli reads the capture policy flags and leaves it out when none is given", () => {
  assert.deepEqual(capturePolicyOf(parseCli([])), emptyCapturePolicy());
  const config = parseCli([
    "--allow-process-launch",
    "--allow-capture",
    "/opt/app/bin/",
    "--allow-capture",
    "/usr/bin/true",
    "--capture-root",
    "/srv/work",
    "--capture-env",
    "API_TOKEN",
    "--capture-allow-network",
    "--confirm-captures",
  ]);
  assert.deepEqual(capturePolicyOf(config), {
    executables: ["/opt/app/bin/", "/usr/bin/true"],
    roots: ["/srv/work"],
    environment: ["API_TOKEN"],
    allowHostNetwork: true,
    requireHumanConfirmation: true,
  });
  for (
    const flag of ["--allow-capture", "--capture-root", "--capture-policy", "--confirm-captures"]
  ) {
    assert.ok(USAGE.includes(flag), `usage mentions ${flag}`);
  }
});

Deno.test("parseCli merges --capture-policy FILE with the flags and refuses bad entries", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/policy.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        executables: ["/opt/tool"],
        roots: ["/srv/a", "/srv/work"],
        environment: ["MODE"],
        require_human_confirmation: true,
      }),
    );
    const config = parseCli(["--capture-policy", file, "--capture-root", "/srv/work"]);
    assert.deepEqual(capturePolicyOf(config), {
      executables: ["/opt/tool"],
      roots: ["/srv/work", "/srv/a"],
      environment: ["MODE"],
      allowHostNetwork: false,
      requireHumanConfirmation: true,
    });
    const bad: [unknown, RegExp][] = [
      [{ executables: ["relative/tool"] }, /absolute path/],
      [{ environment: ["NOT-A-NAME"] }, /environment variable name/],
      [{ roots: "/srv" }, /array of strings/],
      [{ allow_host_network: "yes" }, /true or false/],
      [{ surprise: true }, /unknown key/],
      [[], /JSON object/],
    ];
    for (const [content, message] of bad) {
      await Deno.writeTextFile(file, JSON.stringify(content));
      assert.throws(
        () => parseCli(["--capture-policy", file]),
        (error: unknown) => error instanceof UsageError && message.test(error.message),
        JSON.stringify(content),
      );
    }
    await Deno.writeTextFile(file, "{not json");
    assert.throws(() => parseCli(["--capture-policy", file]), UsageError);
    assert.throws(() => parseCli(["--capture-policy", `${dir}/missing.json`]), UsageError);
    assert.throws(() => parseCli(["--allow-capture", "bin/tool"]), /absolute path/);
    assert.throws(() => parseCli(["--capture-env", "1X"]), /environment variable name/);
  }, { prefix: "casefile-cli-policy-" });
});

Deno.test("parseCli reads the HTTP session caps and idle timeout, and refuses non-positive ones", () => {
  const config = parseCli([
    "--max-sessions",
    "8",
    "--max-sessions-per-principal=2",
    "--session-idle-timeout",
    "30",
  ]);
  assert.deepEqual(config.sessions, {
    maxSessions: 8,
    maxSessionsPerPrincipal: 2,
    idleTimeoutMs: 30_000,
  });
  for (const bad of ["0", "-1", "1.5", "lots", ""]) {
    assert.throws(() => parseCli(["--max-sessions", bad]), UsageError, bad);
    assert.throws(() => parseCli(["--session-idle-timeout", bad]), UsageError, bad);
  }
  assert.match(USAGE, /--max-sessions-per-principal N/);
});
