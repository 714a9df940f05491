import assert from "node:assert/strict";
import { APPS_TOOLSETS } from "../src/apps/workbench.ts";
import { CLOUD_TOOLSETS } from "../src/cloud/workbench.ts";
import { BUILTIN_PROFILES } from "../src/core/policy/profiles.ts";
import { policySession } from "./helpers/policy_session.ts";
import type { Principal } from "../src/core/policy.ts";
import { assembleServer } from "../src/server.ts";
import { appsWorkbenchWith } from "../src/apps/workbench.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { privacyWorkbenchWith } from "../src/privacy/workbench.ts";

const PROFILES = Object.keys(BUILTIN_PROFILES);

/** Every registered tool with its workbench (from a server without any policy). */
function registered(): Map<string, string> {
  const server = assembleServer({}, [
    appsWorkbenchWith({}),
    cloudWorkbenchWith(),
    privacyWorkbenchWith(),
  ]);
  const apps = new Set(APPS_TOOLSETS.map((t) => t.name));
  const cloud = new Set(CLOUD_TOOLSETS.map((t) => t.name as string));
  const out = new Map<string, string>();
  for (const tool of server.catalog.list()) {
    const set = tool.toolset ?? "";
    out.set(tool.name, apps.has(set) ? "apps" : cloud.has(set) ? "cloud" : "privacy");
  }
  void server.close();
  return out;
}

async function visible(profile: string, principal?: Principal): Promise<Set<string>> {
  const session = await policySession(profile, {
    demo: false,
    ...(principal ? { principal } : {}),
  });
  try {
    return new Set((await session.client.listTools()).tools.map((t) => t.name));
  } finally {
    await session.close();
  }
}

const token = (id: string, roles: string[]): Principal => ({ id, kind: "token", roles });

Deno.test("visible tool counts per built-in profile, for both workbenches (the README table)", async () => {
  const all = registered();
  const rows: string[] = [
    "| profile | apps | cloud | privacy | total | hidden |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
  ];
  const hiddenBy: Record<string, string[]> = {};
  const cases: [string, string, Principal | undefined][] = [
    ...PROFILES.map((p): [string, string, undefined] => [BUILTIN_PROFILES[p]!.name!, p, undefined]),
    ["soc-analyst (analyst)", "soc-analyst", token("ann", ["analyst"])],
    ["soc-analyst (lead)", "soc-analyst", token("lee", ["lead"])],
    ["standard (admin)", "standard", token("adm", ["admin"])],
  ];
  for (const [label, profile, principal] of cases) {
    const shown = await visible(profile, principal);
    const count = (wb: string): number =>
      [...all].filter(([name, owner]) => owner === wb && shown.has(name)).length;
    const hidden = [...all.keys()].filter((name) => !shown.has(name));
    hiddenBy[label] = hidden;
    rows.push(
      `| ${label} | ${count("apps")} | ${count("cloud")} | ${count("privacy")} | ${shown.size} | ${
        hidden.join(", ") || "—"
      } |`,
    );
  }
  console.log(
    `\nVisible tools per profile (local principal unless a role is named):\n${rows.join("\n")}`,
  );
  assert.deepEqual(hiddenBy.open, []);
  assert.deepEqual(hiddenBy.standard, ["reveal_token"]);
  assert.deepEqual(hiddenBy["standard (admin)"], [], "admin may reveal under standard");
  assert.deepEqual(
    hiddenBy.airgapped!.sort(),
    ["capture_process_scenario", "reveal_token"],
    "airgapped hides process launches (and network tools) and reveal",
  );
  assert.deepEqual(
    hiddenBy.read_only!.sort(),
    [
      "capture_process_scenario",
      "export_ontology",
      "export_report",
      "export_terraform",
      "extract_artifact",
      "reveal_token",
    ],
    "read_only hides launchers and file writers",
  );
  assert.deepEqual([...hiddenBy.audit!].sort(), [...hiddenBy.read_only!].sort());
  assert.deepEqual(
    hiddenBy.strict!.sort(),
    [
      "capture_process_scenario",
      "export_ontology",
      "export_report",
      "export_terraform",
      "extract_artifact",
      "get_asset_metadata",
      "privacy_audit_log",
      "reveal_token",
      "sparql_query",
      "subgraph_export",
    ],
    "strict also hides restricted tools",
  );
  assert.deepEqual([...hiddenBy["soc-analyst"]!].sort(), [...hiddenBy.strict!].sort());
  assert.deepEqual(
    hiddenBy["soc-analyst (lead)"]!.sort(),
    ["capture_process_scenario"],
    "a lead may reveal, write files and read restricted output",
  );
});

Deno.test("under strict the tool list withholds output schemas; under open it keeps them", async () => {
  const strict = await policySession("strict", { demo: false });
  const open = await policySession("open", { demo: false });
  try {
    const s = (await strict.client.listTools()).tools;
    const o = (await open.client.listTools()).tools;
    assert.ok(s.every((t) => t.outputSchema === undefined));
    assert.ok(o.every((t) => t.outputSchema !== undefined));
  } finally {
    await strict.close();
    await open.close();
  }
});
