/**
 * The MCP conformance suite (an external black-box client) against the
 * Streamable HTTP server: every scenario that needs no `test_*` fixture
 * tools, prompts or resources of its own.
 */

import assert from "node:assert/strict";
import { startHttpServer } from "./helpers/spawn.ts";

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
