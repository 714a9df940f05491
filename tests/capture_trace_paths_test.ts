/**
 * Paths in the syscall trace of a capture are the real file names: strace
 * escapes quotes, control characters, non-ASCII bytes and angle brackets in
 * the paths it decorates file descriptors with (`3</dir/a\74b>`), and those
 * must be decoded like its quoted strings; relative names of calls without a
 * directory fd (mkdir) are resolved, through fchdir. The peer is the directory listing
 * after the run (the names the files really have).
 */

import assert from "node:assert/strict";
import { hostFacts } from "../src/apps/capture/host.ts";
import { planCapture } from "../src/apps/capture/plan.ts";
import { captureRequestSchema } from "../src/apps/capture/request.ts";
import { chooseBackends, runCapture } from "../src/apps/capture/runner.ts";
import type { CapturePolicySettings } from "../src/apps/capture/settings.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const HOST = await hostFacts();
const STRACE = HOST.helpers.strace.path !== null && HOST.helpers.strace.granted;
const TOUCH = "/usr/bin/touch";
const RM = "/usr/bin/rm";
const MKDIR = "/usr/bin/mkdir";
const TOOLS = await Promise.all(
  [TOUCH, RM, MKDIR].map((p) => Deno.stat(p).then(() => true, () => false)),
);
const READY = Deno.build.os === "linux" && STRACE && TOOLS.every(Boolean);
if (!READY) {
  console.log("skip: strace, touch, rm or mkdir is missing; the trace path tests are ignored");
}

const NAMES = ['we"ird\nname é.txt', "a<b>c|d", "back\\slash", "tab\there"];

Deno.test({
  name:
    "runCapture() traces opened, created, removed and made paths under their real, absolute names",
  ignore: !READY,
  fn: async () => {
    await withTempDir(async (base) => {
      // A working directory whose own name needs escaping too (it decorates AT_FDCWD).
      const work = `${base}/wörk <dir>`;
      await Deno.mkdir(work);
      const policy: CapturePolicySettings = {
        executables: [TOUCH, RM, MKDIR],
        roots: [base],
        environment: [],
        allowHostNetwork: true,
        requireHumanConfirmation: false,
      };
      const capture = async (executable: string, args: string[]) => {
        const request = captureRequestSchema.parse({
          approved: true,
          executable,
          arguments: args,
          working_directory: work,
          network_access: "host",
          trace: "strace",
        });
        const plan = await planCapture(request, policy);
        const run = await runCapture(plan, chooseBackends(plan, HOST), HOST);
        assert.equal(run.exit.code, 0);
        assert.ok(run.trace, "strace ran");
        return run.trace.files.filter((f) => f.writes && f.result === "ok");
      };
      const created = await capture(TOUCH, NAMES);
      const listed: string[] = [];
      for await (const entry of Deno.readDir(work)) listed.push(`${work}/${entry.name}`);
      assert.deepEqual(created.map((f) => f.path).sort(), listed.sort());
      const removed = await capture(RM, NAMES);
      assert.deepEqual(removed.map((f) => f.path).sort(), listed.sort());
      // mkdir(2) takes no directory fd: a relative name is resolved against the working
      // directory (no process of the run changed its directory).
      const made = await capture(MKDIR, ["-p", "./x y/z"]);
      const dirs: string[] = [];
      for await (const entry of Deno.readDir(work)) {
        dirs.push(`${work}/${entry.name}`);
        for await (const inner of Deno.readDir(`${work}/${entry.name}`)) {
          dirs.push(`${work}/${entry.name}/${inner.name}`);
        }
      }
      assert.deepEqual(made.map((f) => f.path).sort(), dirs.sort());
    }, { realPath: true });
  },
});
