/**
 * The environment a captured program sees: only the request's names plus
 * HOME, TERM, PATH and the run token — compared with `/usr/bin/env` run
 * directly under exactly that environment (the launcher's shell must not add
 * PWD, nor rewrite a PWD the request gives, nor change a requested variable
 * that shares a name with one of its own), with and without gdb
 * (crash_backtrace), which adds LINES and COLUMNS and starts the program
 * through a shell of its own).
 */

import assert from "node:assert/strict";
import { hostFacts } from "../src/apps/capture/host.ts";
import { planCapture } from "../src/apps/capture/plan.ts";
import { captureRequestSchema } from "../src/apps/capture/request.ts";
import { chooseBackends, runCapture } from "../src/apps/capture/runner.ts";
import type { CapturePolicySettings } from "../src/apps/capture/settings.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const ENV = "/usr/bin/env";
const HAS_ENV = await Deno.stat(ENV).then((s) => s.isFile, () => false);
const LINUX = Deno.build.os === "linux";
if (!HAS_ENV) console.log("skip: /usr/bin/env is missing; the capture environment test is ignored");
const HOST = await hostFacts();
const GDB = HOST.helpers.gdb.path !== null && HOST.helpers.gdb.granted;
if (!GDB) console.log("skip: gdb is missing; the environment under crash_backtrace is not checked");

/** `NAME=value` lines printed by env, as a map. */
function parseEnv(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out.set(line.slice(0, at), line.slice(at + 1));
  }
  return out;
}

/** The peer: env run directly with exactly `env`, in `cwd`. */
async function peerEnv(cwd: string, env: Record<string, string>): Promise<Map<string, string>> {
  const out = await new Deno.Command(ENV, { cwd, env, clearEnv: true, stdout: "piped" }).output();
  return parseEnv(new TextDecoder().decode(out.stdout));
}

Deno.test({
  name:
    "runCapture() gives the program only the requested names plus HOME, TERM, PATH and the run token",
  ignore: !LINUX || !HAS_ENV,
  fn: async () => {
    await withTempDir(async (dir) => {
      const policy: CapturePolicySettings = {
        executables: [ENV],
        roots: [dir],
        environment: ["CAPTURE_A", "PWD", "status", "cg", "LINES"],
        allowHostNetwork: true,
        requireHumanConfirmation: false,
      };
      const cases: Record<string, string>[] = [
        { CAPTURE_A: "one" },
        { CAPTURE_A: "one", PWD: "/nowhere" },
        // Names a launcher script might use for its own variables.
        { status: "mine", cg: "mine too" },
        // gdb adds LINES and COLUMNS of its own unless the request gives them.
        { LINES: "7", CAPTURE_A: "it's" },
      ];
      const runs = cases.flatMap((environment) =>
        [false, ...(GDB ? [true] : [])].map((crashBacktrace) => ({ environment, crashBacktrace }))
      );
      for (const { environment, crashBacktrace } of runs) {
        const request = captureRequestSchema.parse({
          approved: true,
          executable: ENV,
          working_directory: dir,
          network_access: "host",
          environment,
          crash_backtrace: crashBacktrace,
        });
        const plan = await planCapture(request, policy);
        const run = await runCapture(plan, chooseBackends(plan, HOST), HOST);
        const text = run.frames.filter((f) => f.stream === "stdout").map((f) => f.data).join("");
        const seen = parseEnv(text);
        assert.equal(run.exit.code, 0);
        // HOME and the run token are per run: the peer gets the values this run used.
        const peer = await peerEnv(dir, {
          ...environment,
          HOME: seen.get("HOME") ?? "(missing)",
          TERM: seen.get("TERM") ?? "(missing)",
          PATH: seen.get("PATH") ?? "(missing)",
          REA_PROCESS_RUN_ID: seen.get("REA_PROCESS_RUN_ID") ?? "(missing)",
        });
        assert.deepEqual(
          [...seen.entries()].sort(),
          [...peer.entries()].sort(),
          `environment ${JSON.stringify(environment)}, crash_backtrace ${crashBacktrace}`,
        );
      }
    }, { realPath: true });
  },
});
