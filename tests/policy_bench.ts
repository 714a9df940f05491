/**
 * What the policy costs. First, transform throughput (string values per
 * second) over the whole 100,000-asset generated estate under standard and
 * strict, strict with a cold and a warm vault, with peak RSS. Then the
 * latency each built-in profile adds, beside `open` in the same run, to a
 * completion, `dataset_summary` and the largest resource read
 * (`cloudg://findings/severity/{severity}`, 200 findings).
 *
 * Run with `deno bench --no-prompt --allow-read --allow-write --allow-env tests/policy_bench.ts`.
 */

import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { compilePolicy, gateOptions } from "../src/core/policy/compile.ts";
import { loadPolicy } from "../src/core/policy/document.ts";
import { BUILTIN_PROFILES } from "../src/core/policy/profiles.ts";
import type { PolicyRequest } from "../src/core/policy.ts";
import { privacyWorkbenchWith } from "../src/privacy/workbench.ts";
import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { connect, type Connected } from "./helpers/in_memory.ts";

const SIZE = 100_000;
const { records, byType } = generateEstate(SIZE);
const target = byType.get("EC2")![Math.floor(byType.get("EC2")!.length * 0.73)]!;

function countStrings(value: unknown): number {
  if (typeof value === "string") return 1;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countStrings(v), 0);
  if (value !== null && typeof value === "object") {
    return Object.values(value).reduce((n: number, v) => n + countStrings(v), 0);
  }
  return 0;
}

const REQUEST: PolicyRequest = {
  kind: "tool",
  name: "export_dataset",
  effects: {},
  sensitivity: "internal",
  category: "workspace",
};
const values = countStrings(records);
const lines: string[] = [];
const rss = (): string => `${(Deno.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`;
function throughput(label: string, run: () => void): void {
  const start = performance.now();
  run();
  const seconds = (performance.now() - start) / 1000;
  lines.push(
    `${label}: ${seconds.toFixed(2)} s, ${
      (values / seconds / 1e6).toFixed(2)
    } M values/s, RSS ${rss()}`,
  );
}
const env = () => "bench-vault-key";
const standard = compilePolicy(loadPolicy("standard"), { env });
throughput("standard", () => standard.transform(REQUEST, records));
const strictCold = compilePolicy(loadPolicy("strict"), { env });
throughput("strict, cold vault", () => strictCold.transform(REQUEST, records));
lines.push(`  vault entries after one pass: ${strictCold.vault.size}`);
throughput("strict, warm vault", () => strictCold.transform(REQUEST, records));
console.log(
  `\nWhole-dataset transform, ${SIZE} assets, ${records.edges.length} edges, ${records.findings.length} findings (${values} string values):\n  ${
    lines.join("\n  ")
  }`,
);

// Per call, each profile beside open, on the same estate loaded from a file.
const dir = await Deno.makeTempDir({ prefix: "casefile-policy-bench-" });
const path = `${dir}/estate.json`;
await Deno.writeTextFile(path, JSON.stringify(records));
const sessions = new Map<string, Connected>();
for (const profile of Object.keys(BUILTIN_PROFILES)) {
  // The limits stay checked, but a clock that jumps a minute per call keeps every bucket full:
  // the bench calls far faster than strict's 240 per minute.
  let clock = 0;
  const policy = compilePolicy(loadPolicy(profile), { env, now: () => (clock += 60_000) });
  sessions.set(
    profile,
    await connect({
      ...gateOptions(policy),
      workbenches: [
        cloudWorkbenchWith({ datasets: [{ name: "gen", path }] }),
        privacyWorkbenchWith({ policy }),
      ],
    }),
  );
}
for (const session of sessions.values()) {
  await session.client.callTool({ name: "dataset_summary", arguments: { dataset: "gen" } });
}

const calls: Record<string, (s: Connected) => Promise<unknown>> = {
  completion: (s) =>
    s.client.complete({
      ref: { type: "ref/resource", uri: "cloudg://assets/{+ref}" },
      argument: { name: "ref", value: "i-1" },
    }),
  dataset_summary: (s) =>
    s.client.callTool({ name: "dataset_summary", arguments: { dataset: "gen" } }),
  large_resource: (s) => s.client.readResource({ uri: "cloudg://findings/severity/HIGH" }),
  get_asset: (s) => s.client.callTool({ name: "get_asset", arguments: { ref: target } }),
  find_assets: (s) =>
    s.client.callTool({
      name: "find_assets",
      arguments: { query: "lambda-function-1", limit: 50 },
    }),
};

for (const [call, run] of Object.entries(calls)) {
  for (const [profile, session] of sessions) {
    const name = `${call} ${profile}`;
    Deno.bench({ name, group: call, baseline: profile === "open", n: 30, warmup: 5 }, async (b) => {
      await measure(name, b, () => run(session));
    });
    reportMedian(name, name, null);
    if (profile !== "open") compareTo(`${call}: ${profile} vs open`, name, `${call} open`, null);
  }
}

globalThis.addEventListener("unload", () => {
  for (const session of sessions.values()) void session.close();
  Deno.removeSync(dir, { recursive: true });
});
