/**
 * Process-capture benchmarks, each beside its peer in the same run: the
 * overhead of a whole capture (plan, launch through sh + setsid, sampling,
 * filesystem checkpoints, cleanup verification, result building) against
 * running the same short command directly with Deno.Command, with and
 * without strace (and strace run directly as its own peer), and the time
 * from a timeout to the whole tree being gone, for a process that obeys
 * SIGTERM and for one that ignores it (SIGKILL after the grace period).
 */

import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { hostFacts } from "../src/apps/capture/host.ts";
import { planCapture } from "../src/apps/capture/plan.ts";
import { captureRequestSchema } from "../src/apps/capture/request.ts";
import { buildCapture } from "../src/apps/capture/result.ts";
import { chooseBackends, runCapture } from "../src/apps/capture/runner.ts";

const facts = await hostFacts();
const READY = Deno.build.os === "linux" && facts.helpers.sh.granted &&
  facts.helpers.setsid.path !== null;
if (!READY) console.log("skip: capture benchmarks need Linux with sh and setsid");
const STRACE = facts.helpers.strace.path !== null && facts.helpers.strace.granted;
if (!STRACE) console.log("skip: strace is missing; the traced capture bench is ignored");

const work = Deno.realPathSync(await Deno.makeTempDir({ prefix: "casefile-capture-bench-" }));
const TRUE = Deno.realPathSync("/bin/true");
const SH = "/bin/sh";
const policy = {
  executables: [TRUE, SH, Deno.realPathSync(SH)],
  roots: [work],
  environment: [],
  allowHostNetwork: !facts.networkNamespace.available,
  requireHumanConfirmation: false,
};
const network = facts.networkNamespace.available ? "none" : "host";

async function capture(
  executable: string,
  args: string[],
  extra: Record<string, unknown> = {},
  graceMs?: number,
): Promise<{ cleanupMs: number }> {
  const request = captureRequestSchema.parse({
    approved: true,
    executable,
    arguments: args,
    working_directory: work,
    network_access: network,
    settle_ms: 0,
    ...extra,
  });
  const plan = await planCapture(request, policy);
  const run = await runCapture(plan, chooseBackends(plan, facts), facts, {
    ...(graceMs !== undefined ? { graceMs } : {}),
  });
  buildCapture(plan, run, { casefileVersion: "bench", platform: "linux", architecture: "x" });
  return { cleanupMs: run.cleanup.elapsed_ms };
}

const cleanupTimes = new Map<string, number[]>();

if (READY) {
  Deno.bench({
    name: "peer: Deno.Command /bin/true",
    group: "overhead",
    baseline: true,
    n: 20,
    warmup: 2,
    fn: async (b) => {
      await measure("direct", b, () => new Deno.Command(TRUE, { stdout: "null" }).output());
    },
  });
  Deno.bench({
    name: "capture_process_scenario /bin/true (no strace)",
    group: "overhead",
    n: 20,
    warmup: 2,
    fn: async (b) => {
      await measure("capture", b, () => capture(TRUE, [], { trace: "none" }));
    },
  });
  compareTo("capture of /bin/true (no strace) vs running it directly", "capture", "direct", null);
  reportMedian("capture of /bin/true (no strace)", "capture", null);
  if (STRACE) {
    Deno.bench({
      name: "peer: strace -ff -o … /bin/true directly",
      group: "overhead",
      n: 20,
      warmup: 2,
      fn: async (b) => {
        const dir = await Deno.makeTempDir();
        await measure("strace-direct", b, () =>
          new Deno.Command("strace", {
            args: ["-ff", "-q", "-o", `${dir}/t`, "--", TRUE],
            stdout: "null",
            stderr: "null",
          }).output());
        await Deno.remove(dir, { recursive: true });
      },
    });
    Deno.bench({
      name: "capture_process_scenario /bin/true (strace)",
      group: "overhead",
      n: 20,
      warmup: 2,
      fn: async (b) => {
        await measure("capture-strace", b, () => capture(TRUE, [], { trace: "strace" }));
      },
    });
    compareTo(
      "capture of /bin/true with strace vs strace directly",
      "capture-strace",
      "strace-direct",
      null,
    );
    compareTo(
      "capture of /bin/true with strace vs running it directly",
      "capture-strace",
      "direct",
      null,
    );
  }
  for (
    const [name, script] of [
      ["obeys SIGTERM", "sleep 30"],
      ["ignores SIGTERM", 'trap "" TERM; sleep 30'],
    ] as const
  ) {
    Deno.bench({
      name: `timeout → tree gone: sh that ${name} (timeout 100 ms, grace 500 ms)`,
      group: "timeout",
      n: 5,
      warmup: 1,
      fn: async (b) => {
        let cleanupMs = 0;
        await measure(`timeout-${name}`, b, async () => {
          ({ cleanupMs } = await capture(
            SH,
            ["-c", script],
            { timeout_ms: 100, trace: "none" },
            500,
          ));
        });
        const list = cleanupTimes.get(name) ?? [];
        list.push(cleanupMs);
        cleanupTimes.set(name, list);
      },
    });
    reportMedian(`whole capture with a 100 ms timeout, sh that ${name}`, `timeout-${name}`, null);
  }
}

globalThis.addEventListener("unload", () => {
  const lines: string[] = [];
  for (const [name, list] of cleanupTimes) {
    const sorted = [...list].sort((a, b) => a - b);
    const mid = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    lines.push(
      `timeout → whole tree verified gone (sh that ${name}): median ${mid} ms over ${list.length} runs`,
    );
  }
  if (lines.length > 0) console.log(`\ncleanup (same run):\n  ${lines.join("\n  ")}`);
  try {
    Deno.removeSync(work, { recursive: true });
  } catch {
    // already gone
  }
});
