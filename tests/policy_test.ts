import assert from "node:assert/strict";
import {
  defaultRules,
  PolicyGate,
  type PolicyRequest,
  type PolicyRule,
  type PolicyTransform,
} from "../src/core/policy.ts";
import {
  allowedWhenReadOnly,
  annotationsFor,
  titleFor,
  type ToolEffects,
} from "../src/core/catalog.ts";
import {
  flagFor,
  isGranted,
  permissionFailure,
  probePermissions,
} from "../src/core/permissions.ts";
import { invalidRequest, ToolFailure } from "../src/core/errors.ts";
import { complete } from "../src/core/completion.ts";

function tool(name: string, effects: ToolEffects = {}, subject?: string): PolicyRequest {
  return subject === undefined
    ? { kind: "tool", name, effects }
    : { kind: "effect", name, effects, subject };
}

const READ = tool("list_procedures");
const LAUNCH = tool("capture_process_scenario", { launchesProcess: true, mutatesSession: true });
const WRITE = tool("extract_artifact", { writesFilesystem: true });
const NETWORK = tool("fetch_symbols", { accessesNetwork: true });
const MUTATE_TARGET = tool("rename_procedure", { mutatesTarget: true });
const MUTATE_SESSION = tool("open_binary", { mutatesSession: true });

const STATES: readonly string[] = ["granted", "denied", "not_granted"];

function refusal(gate: PolicyGate, request: PolicyRequest): ToolFailure {
  const failure = gate.check(request);
  assert.ok(failure instanceof ToolFailure, `${request.name} should be refused`);
  return failure;
}

// ---------------------------------------------------------------------------
// Default rules

Deno.test("PolicyGate with the default profile lets a read through", async () => {
  const gate = new PolicyGate();
  assert.equal(gate.check(READ), null);
  assert.equal(gate.permits(READ), true);
  assert.equal(gate.permits(MUTATE_SESSION), true);
  assert.equal(await gate.run(READ, () => "listed"), "listed");
});

Deno.test("PolicyGate with the default profile refuses launching a process and names the operator flag", () => {
  const failure = refusal(new PolicyGate(), LAUNCH);
  assert.equal(failure.code, "permission_required");
  assert.equal(failure.body.category, "permission_required");
  assert.match(failure.message, /capture_process_scenario/);
  assert.match(failure.body.remediation.action, /--allow-process-launch/);
  assert.match(failure.body.remediation.action, /--allow-run/);
  assert.equal(failure.body.remediation.restart_required, true);
});

Deno.test("PolicyGate names the program of a refused process effect", () => {
  const failure = refusal(
    new PolicyGate(),
    tool("start_provider", { launchesProcess: true }, "objdump"),
  );
  assert.match(failure.message, /objdump/);
});

Deno.test("PolicyGate with the default profile refuses writing files", () => {
  const failure = refusal(new PolicyGate(defaultRules()), WRITE);
  assert.equal(failure.code, "permission_required");
  assert.match(failure.body.remediation.action, /--allow-file-writes/);
  assert.ok(new PolicyGate(defaultRules({ allowFileWrites: true })).permits(WRITE));
});

Deno.test("PolicyGate in read-only mode refuses network and target mutation but allows session mutation", () => {
  const gate = new PolicyGate(defaultRules({ readOnly: true }));
  for (const request of [NETWORK, MUTATE_TARGET, WRITE, LAUNCH]) {
    const failure = refusal(gate, request);
    assert.equal(failure.code, "permission_required");
    assert.match(failure.message, /--read-only/);
  }
  assert.equal(gate.check(MUTATE_SESSION), null);
  assert.equal(
    gate.check(tool("close_binary", { mutatesSession: true, mayDiscardData: true })),
    null,
  );
  assert.equal(gate.check(READ), null);
  // The control: without read-only, network and target mutation pass.
  const open = new PolicyGate(defaultRules());
  assert.equal(open.check(NETWORK), null);
  assert.equal(open.check(MUTATE_TARGET), null);
});

Deno.test("PolicyGate in read-only mode refuses a process even when process launch is allowed", () => {
  const gate = new PolicyGate(defaultRules({ readOnly: true, allowProcessLaunch: true }));
  assert.match(refusal(gate, LAUNCH).message, /--read-only/);
});

Deno.test("PolicyGate with allowProcessLaunch lets a process effect through", () => {
  const gate = new PolicyGate(defaultRules({ allowProcessLaunch: true }));
  assert.equal(gate.check(LAUNCH), null);
  assert.equal(gate.check(tool("start_provider", { launchesProcess: true }, "objdump")), null);
  // Other refusals still apply.
  assert.ok(gate.check(WRITE) instanceof ToolFailure);
});

// ---------------------------------------------------------------------------
// run(): refusal, transforms, added rules

Deno.test("PolicyGate.run() throws the refusal and never calls the operation", async () => {
  const gate = new PolicyGate();
  let calls = 0;
  await assert.rejects(
    gate.run(LAUNCH, () => {
      calls++;
      return "ran";
    }),
    (error: unknown) => error instanceof ToolFailure && error.code === "permission_required",
  );
  assert.equal(calls, 0);
});

Deno.test("PolicyGate.run() applies transforms in order", async () => {
  const append = (suffix: string): PolicyTransform => <T>(_request: PolicyRequest, value: T): T =>
    (typeof value === "string" ? `${value}${suffix}` : value) as T;
  const gate = new PolicyGate(defaultRules(), [append("-a")]);
  gate.addTransform(append("-b"));
  assert.equal(await gate.run(READ, () => "x"), "x-a-b");
  assert.equal(await gate.run(READ, () => Promise.resolve("y")), "y-a-b");
});

Deno.test("PolicyGate.run() passes the request to transforms", async () => {
  const seen: PolicyRequest[] = [];
  const gate = new PolicyGate([], [<T>(request: PolicyRequest, value: T): T => {
    seen.push(request);
    return value;
  }]);
  await gate.run(READ, () => 1);
  assert.deepEqual(seen, [READ]);
});

Deno.test("PolicyGate.addRule() adds a rate limit without other changes", async () => {
  const gate = new PolicyGate();
  let allowed = 2;
  gate.addRule(() =>
    allowed-- > 0 ? null : new ToolFailure("limit_exceeded", "Rate limit: 2 calls allowed.")
  );
  let calls = 0;
  const operation = (): number => ++calls;
  assert.equal(await gate.run(READ, operation), 1);
  assert.equal(await gate.run(READ, operation), 2);
  await assert.rejects(
    gate.run(READ, operation),
    (error: unknown) => error instanceof ToolFailure && error.code === "limit_exceeded",
  );
  assert.equal(calls, 2);
});

Deno.test("PolicyGate.check() returns the first refusal in rule order", () => {
  const first: PolicyRule = () => invalidRequest("first");
  const second: PolicyRule = () => invalidRequest("second");
  assert.equal(new PolicyGate([first, second]).check(READ)?.message, "first");
});

Deno.test("PolicyGate copies its rule list", () => {
  const rules: PolicyRule[] = [];
  const gate = new PolicyGate(rules);
  rules.push(() => invalidRequest("late"));
  assert.equal(gate.check(READ), null);
});

Deno.test("PolicyGate.run() around complete() rewrites completion values, as a pseudonymising policy does", async () => {
  const pseudonyms = new Map([["alice-laptop", "host-1"], ["bob-laptop", "host-2"]]);
  const gate = new PolicyGate(defaultRules(), [<T>(request: PolicyRequest, value: T): T => {
    if (request.kind !== "completion") return value;
    const answer = value as unknown as { values: string[] };
    return { ...answer, values: answer.values.map((v) => pseudonyms.get(v) ?? v) } as T;
  }]);
  const answer = await gate.run(
    { kind: "completion", name: "prompt:investigate_asset#ref", effects: {} },
    () => complete("", () => ["bob-laptop", "alice-laptop"], { arguments: {} }),
  );
  assert.deepEqual(answer, { values: ["host-1", "host-2"], total: 2, hasMore: false });
});

// ---------------------------------------------------------------------------
// Annotations derived from effects

Deno.test("annotationsFor() sets readOnlyHint only when there are no effects", () => {
  assert.equal(annotationsFor("list_procedures", {}).readOnlyHint, true);
  assert.equal(annotationsFor("list_procedures", { idempotent: false }).readOnlyHint, true);
  const effects: (keyof ToolEffects)[] = [
    "mutatesTarget",
    "mutatesSession",
    "writesFilesystem",
    "launchesProcess",
    "accessesNetwork",
    "mayDiscardData",
  ];
  for (const effect of effects) {
    assert.equal(annotationsFor("t", { [effect]: true }).readOnlyHint, false, effect);
    assert.equal(annotationsFor("t", { [effect]: false }).readOnlyHint, true, effect);
  }
});

Deno.test("annotationsFor() derives destructiveHint from mayDiscardData alone", () => {
  assert.equal(annotationsFor("close_binary", { mayDiscardData: true }).destructiveHint, true);
  assert.equal(
    annotationsFor("rename_procedure", { mutatesTarget: true, writesFilesystem: true })
      .destructiveHint,
    false,
  );
  assert.equal(annotationsFor("list_procedures", {}).destructiveHint, false);
});

Deno.test("annotationsFor() defaults idempotentHint to true", () => {
  assert.equal(annotationsFor("t", {}).idempotentHint, true);
  assert.equal(annotationsFor("t", { mutatesSession: true }).idempotentHint, true);
  assert.equal(annotationsFor("t", { idempotent: false }).idempotentHint, false);
});

Deno.test("annotationsFor() derives openWorldHint from launchesProcess or accessesNetwork", () => {
  assert.equal(annotationsFor("t", { launchesProcess: true }).openWorldHint, true);
  assert.equal(annotationsFor("t", { accessesNetwork: true }).openWorldHint, true);
  assert.equal(annotationsFor("t", { writesFilesystem: true }).openWorldHint, false);
  assert.equal(annotationsFor("t", { mutatesTarget: true }).openWorldHint, false);
  assert.equal(annotationsFor("t", {}).openWorldHint, false);
});

Deno.test("annotationsFor() carries the derived title", () => {
  assert.deepEqual(annotationsFor("open_binary", { mutatesSession: true }), {
    title: "Open Binary",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  });
});

Deno.test("titleFor() title-cases snake_case words", () => {
  assert.equal(titleFor("analyze_function"), "Analyze Function");
  assert.equal(titleFor("open_binary"), "Open Binary");
  assert.equal(titleFor("capture_process_scenario"), "Capture Process Scenario");
  assert.equal(titleFor("status"), "Status");
});

Deno.test("allowedWhenReadOnly() keeps session effects and drops outside effects", () => {
  assert.equal(allowedWhenReadOnly({}), true);
  assert.equal(allowedWhenReadOnly({ mutatesSession: true }), true);
  assert.equal(allowedWhenReadOnly({ mutatesSession: true, mayDiscardData: true }), true);
  assert.equal(allowedWhenReadOnly({ mutatesTarget: true }), false);
  assert.equal(allowedWhenReadOnly({ writesFilesystem: true }), false);
  assert.equal(allowedWhenReadOnly({ launchesProcess: true }), false);
  assert.equal(allowedWhenReadOnly({ accessesNetwork: true }), false);
});

// ---------------------------------------------------------------------------
// Permissions

Deno.test("permissionFailure() turns NotCapable into permission_required naming --allow-read=/x", () => {
  const failure = permissionFailure(
    new Deno.errors.NotCapable(
      'Requires read access to "/x", run again with the --allow-read flag',
    ),
  );
  assert.ok(failure instanceof ToolFailure);
  assert.equal(failure.code, "permission_required");
  assert.match(failure.body.remediation.action, /--allow-read=\/x\b/);
  assert.equal(failure.body.details?.flag, "--allow-read=/x");
  assert.equal(failure.body.remediation.restart_required, true);
  assert.match(failure.message, /Requires read access to "\/x"/);
  assert.ok(!failure.message.includes("run again"));
});

Deno.test("permissionFailure() names the flag for run, net and env grants", () => {
  const cases: [string, string][] = [
    [
      'Requires run access to "objdump", run again with the --allow-run flag',
      "--allow-run=objdump",
    ],
    [
      'Requires net access to "127.0.0.1:8787", run again with the --allow-net flag',
      "--allow-net=127.0.0.1:8787",
    ],
    [
      'Requires env access to "CASEFILE_TOKEN", run again with the --allow-env flag',
      "--allow-env=CASEFILE_TOKEN",
    ],
  ];
  for (const [message, flag] of cases) {
    const failure = permissionFailure(new Deno.errors.NotCapable(message));
    assert.equal(failure?.body.details?.flag, flag);
    assert.ok(failure?.body.remediation.action.includes(flag));
  }
});

Deno.test("permissionFailure() also maps PermissionDenied", () => {
  const failure = permissionFailure(
    new Deno.errors.PermissionDenied(
      'Requires write access to "/tmp/out", run again with the --allow-write flag',
    ),
  );
  assert.equal(failure?.code, "permission_required");
  assert.equal(failure?.body.details?.flag, "--allow-write=/tmp/out");
});

Deno.test("permissionFailure() maps a real NotCapable raised by Deno", {
  ignore: Deno.permissions.querySync({ name: "net", host: "192.0.2.1:9" }).state === "granted",
}, async () => {
  let caught: unknown;
  try {
    const connection = await Deno.connect({ hostname: "192.0.2.1", port: 9 });
    connection.close();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof Deno.errors.NotCapable);
  const failure = permissionFailure(caught);
  assert.equal(failure?.code, "permission_required");
  assert.equal(failure?.body.details?.flag, "--allow-net=192.0.2.1:9");
});

Deno.test("permissionFailure() prefers the caller's flag when one is given", () => {
  const failure = permissionFailure(
    new Deno.errors.NotCapable(
      'Requires read access to "/usr/bin/ls", run again with the --allow-read flag',
    ),
    "--allow-read=/usr/bin",
  );
  assert.equal(failure?.body.details?.flag, "--allow-read=/usr/bin");
  assert.match(failure?.body.remediation.action ?? "", /--allow-read=\/usr\/bin /);
});

Deno.test("permissionFailure() returns null for errors that are not about permissions", () => {
  assert.equal(permissionFailure(new Error('Requires read access to "/x"')), null);
  assert.equal(permissionFailure(new Deno.errors.NotFound("No such file")), null);
  assert.equal(permissionFailure(new TypeError("bad")), null);
  assert.equal(permissionFailure("Requires read access"), null);
  assert.equal(permissionFailure(null), null);
  assert.equal(permissionFailure({ message: 'Requires read access to "/x"' }), null);
});

Deno.test("flagFor() writes the grant flag with and without a target", () => {
  assert.equal(flagFor("read", "/usr/bin"), "--allow-read=/usr/bin");
  assert.equal(flagFor("run"), "--allow-run");
});

Deno.test("probePermissions() returns a state and the exact flag for each need", () => {
  const statuses = probePermissions([
    { name: "read", target: "/tmp", purpose: "read binaries under /tmp" },
    { name: "write", purpose: "extract artifacts" },
    { name: "run", target: "objdump", purpose: "deep disassembly" },
    { name: "net", target: "127.0.0.1:8787", purpose: "HTTP transport" },
    { name: "env", target: "CASEFILE_TOKEN", purpose: "bearer token" },
  ]);
  assert.deepEqual(statuses.map((s) => s.flag), [
    "--allow-read=/tmp",
    "--allow-write",
    "--allow-run=objdump",
    "--allow-net=127.0.0.1:8787",
    "--allow-env=CASEFILE_TOKEN",
  ]);
  for (const status of statuses) {
    assert.ok(STATES.includes(status.state), status.state);
  }
  assert.equal(statuses[0]?.purpose, "read binaries under /tmp");
  assert.equal(statuses[0]?.target, "/tmp");
  // Each state is what Deno itself reports for the same descriptor ("prompt"
  // reads as not_granted: under --no-prompt it is refused).
  const deno = (descriptor: Deno.PermissionDescriptor): string => {
    const state = Deno.permissions.querySync(descriptor).state;
    return state === "prompt" ? "not_granted" : state;
  };
  assert.equal(statuses[0]?.state, deno({ name: "read", path: "/tmp" }));
  assert.equal(statuses[1]?.state, deno({ name: "write" }));
  assert.equal(statuses[2]?.state, deno({ name: "run", command: "objdump" }));
  assert.equal(statuses[3]?.state, deno({ name: "net", host: "127.0.0.1:8787" }));
  assert.equal(statuses[4]?.state, deno({ name: "env", variable: "CASEFILE_TOKEN" }));
  assert.equal(isGranted("read", "/tmp"), statuses[0]?.state === "granted");
});

Deno.test("probePermissions() reports an unqueryable need as denied instead of throwing", () => {
  const [status] = probePermissions([{ name: "net", target: "", purpose: "bad host" }]);
  assert.ok(status);
  assert.ok(STATES.includes(status.state));
  const [invalid] = probePermissions([{ name: "net", target: "::::", purpose: "bad host" }]);
  assert.equal(invalid?.state, "denied");
  assert.equal(invalid?.flag, "--allow-net=::::");
});
