/**
 * The MCP conformance suite (an external black-box client) against the
 * Streamable HTTP server: the fixture-free scenarios against Casefile itself,
 * and every server scenario the suite lists against a server built with the
 * conformance workbench (tests/fixtures/conformance_workbench.ts), which
 * provides the suite's own `test_*` tools, resources and prompts.
 */

import assert from "node:assert/strict";
import { DENO_JSON, LISTENING, startHttpServer } from "./helpers/spawn.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
const FIXTURE_FREE = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "tools-call-error",
  "resources-list",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

async function runScenario(
  url: string,
  scenario: string,
): Promise<{ ok: boolean; output: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-config",
      "--node-modules-dir=none",
      SUITE,
      "server",
      "--url",
      url,
      "--scenario",
      scenario,
    ],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const output = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
  return { ok: result.success, output };
}

// The suite is fetched from the npm registry on first use; without it the test cannot run.
const probe = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", "--no-config", "--node-modules-dir=none", SUITE, "list", "--server"],
  stdout: "piped",
  stderr: "piped",
  stdin: "null",
}).output().catch(() => null);
const available = probe?.success === true;
if (!available) {
  console.log(
    `skip: ${SUITE} could not be fetched or run, so the conformance scenarios are ignored`,
  );
}

Deno.test({
  name: "serveHttp passes the MCP conformance suite's fixture-free server scenarios",
  ignore: !available,
  fn: async () => {
    await using server = await startHttpServer();
    const url = server.url.replace("127.0.0.1", "localhost");
    const failures: string[] = [];
    for (const scenario of FIXTURE_FREE) {
      const { ok, output } = await runScenario(url, scenario);
      if (!ok || !/Passed: \d+\/\d+, 0 failed/.test(output)) {
        failures.push(`${scenario}:\n${output}`);
      }
    }
    assert.deepEqual(failures, []);
  },
});

/**
 * The one scenario that cannot pass cleanly for a reason outside this code:
 * `server-sse-polling` posts its `test_reconnection` call declaring
 * `MCP-Protocol-Version: 2025-03-26`, and the SDK's transport sends the
 * priming event (and its `retry` field) only to requests declaring 2025-11-25
 * or later, since older clients cannot handle its empty data. It fails
 * nothing; these two SHOULD-level warnings are all it reports. The priming
 * event itself is tested with a 2025-11-25 request in http_sessions_test.ts.
 */
const KNOWN_WARNINGS: Record<string, string[]> = {
  "server-sse-polling": ["server-sse-priming-event", "server-sse-retry-field"],
};

const CONFORMANCE_SERVER = new URL("./fixtures/conformance_server.ts", import.meta.url).pathname;

/** Every server scenario the suite lists. */
function listedScenarios(text: string): string[] {
  return [...text.matchAll(/^\s+- ([a-z0-9-]+) \[/gm)].map((m) => m[1]!);
}

Deno.test({
  name: "the conformance workbench over Streamable HTTP passes every server scenario of the suite",
  ignore: !available,
  fn: async () => {
    const scenarios = listedScenarios(new TextDecoder().decode(probe!.stdout));
    assert.ok(scenarios.length >= 32, `scenarios listed: ${scenarios.join(", ")}`);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        DENO_JSON,
        "--allow-net=127.0.0.1",
        CONFORMANCE_SERVER,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let seen = "";
      while (!LISTENING.test(seen)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the conformance server exited: ${seen}`);
        seen += value;
      }
      const port = Number(LISTENING.exec(seen)?.[1]);
      const url = `http://localhost:${port}/mcp`;
      const problems: string[] = [];
      for (const scenario of scenarios) {
        const { output } = await runScenario(url, scenario);
        const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
        const warned = [...output.matchAll(/\[([a-z0-9-]+)\s*\]\s*\S*WARNING/g)].map((m) => m[1]);
        const expected = KNOWN_WARNINGS[scenario] ?? [];
        if (!summary || summary[3] !== "0" || Number(summary[4]) !== expected.length) {
          problems.push(`${scenario}:\n${output}`);
        } else if (JSON.stringify(warned.sort()) !== JSON.stringify([...expected].sort())) {
          problems.push(`${scenario}: warnings ${warned.join(", ")}\n${output}`);
        }
      }
      assert.deepEqual(problems, []);
    } finally {
      child.kill("SIGTERM");
      await reader.cancel().catch(() => {});
      await child.status;
    }
  },
});
