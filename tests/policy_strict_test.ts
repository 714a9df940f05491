import assert from "node:assert/strict";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import type { Loose } from "./helpers/in_memory.ts";
import { policySession } from "./helpers/policy_session.ts";

/** Every real account id, ARN, IP and e-mail address of the demo estate. */
function originals(): { accounts: string[]; arns: string[]; ips: string[]; emails: string[] } {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(sampleRecords());
  const found = (
    pattern: RegExp,
  ): string[] => [...new Set(strings.flatMap((s) => [...s.matchAll(pattern)].map((m) => m[0])))];
  return {
    accounts: found(/(?<!\d)\d{12}(?!\d)/g),
    arns: found(/arn:aws[^\s"',;)]+/g),
    // 0.0.0.0/0 (anywhere) is a special address every profile keeps.
    ips: found(/(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?(?![\d.])/g)
      .filter((ip) => !ip.startsWith("0.0.0.0")),
    emails: found(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g),
  };
}

function leaks(wire: string, values: readonly string[]): string[] {
  return values.filter((value) => wire.includes(value) || wire.includes(encodeURIComponent(value)));
}

Deno.test("a strict session on the demo estate shows no real account id, ARN, IP or e-mail in completions, tool results, prompts or resources, and every pseudonym passed back resolves", async () => {
  const real = originals();
  assert.ok(real.accounts.length >= 3 && real.arns.length >= 10 && real.ips.length >= 4);
  const session = await policySession("strict");
  const { client } = session;
  const wire: string[] = [];
  const keep = (value: unknown): Loose => {
    wire.push(JSON.stringify(value));
    return value;
  };
  try {
    const tools = keep(await client.listTools()).tools as Loose[];
    const templates = keep(await client.listResourceTemplates()).resourceTemplates as Loose[];
    const prompts = keep(await client.listPrompts()).prompts as Loose[];
    const resources = keep(await client.listResources()).resources as Loose[];
    // Completions of every template variable and prompt argument.
    const completed: string[] = [];
    for (const template of templates) {
      for (const variable of template.uriTemplate.match(/\{\+?(\w+)\}/g) ?? []) {
        const name = variable.replace(/[{}+]/g, "");
        const answer = keep(
          await client.complete({
            ref: { type: "ref/resource", uri: template.uriTemplate },
            argument: { name, value: "" },
          }),
        );
        completed.push(...answer.completion.values);
      }
    }
    const refs: string[] = [];
    for (const prompt of prompts) {
      for (const argument of prompt.arguments ?? []) {
        const answer = keep(
          await client.complete({
            ref: { type: "ref/prompt", name: prompt.name },
            argument: { name: argument.name, value: "" },
          }),
        );
        completed.push(...answer.completion.values);
        if (argument.name === "ref") refs.push(...answer.completion.values);
      }
    }
    assert.ok(completed.length > 20, "completions answered");
    // Each completed asset ref reads; the details carry pseudonymised ARNs.
    const arns = new Set<string>();
    for (const ref of refs) {
      const read = keep(
        await client.readResource({ uri: `cloudg://assets/${encodeURIComponent(ref)}` }),
      );
      for (const arn of read.contents[0].text.match(/arn:aws[^\s"',;)]+/g) ?? []) arns.add(arn);
    }
    const pseudonymArns = [...arns];
    assert.ok(pseudonymArns.length >= 5, "asset details show ARNs (pseudonymised)");
    // Tool results: every listed tool with empty arguments, and the summary of each dataset.
    for (const tool of tools) keep(await client.callTool({ name: tool.name, arguments: {} }));
    for (const dataset of ["sample", "after"]) {
      keep(await client.callTool({ name: "dataset_summary", arguments: { dataset } }));
    }
    // Every static resource.
    for (const resource of resources) keep(await client.readResource({ uri: resource.uri }));
    // Every pseudonymised ARN ref resolves as a template variable and as a prompt argument.
    for (const ref of pseudonymArns) {
      const read = keep(
        await client.readResource({ uri: `cloudg://assets/${encodeURIComponent(ref)}` }),
      );
      assert.ok(read.contents[0].text.includes(ref), `asset ${ref} resolved to the same pseudonym`);
    }
    const withRef = prompts.find((p) => (p.arguments ?? []).some((a: Loose) => a.name === "ref"));
    assert.ok(withRef, "a prompt takes an asset ref");
    const rendered = keep(
      await client.getPrompt({ name: withRef.name, arguments: { ref: pseudonymArns[0]! } }),
    );
    assert.ok(JSON.stringify(rendered).includes(pseudonymArns[0]!));
    // A pseudonym in a completion's context resolves too.
    const withContext = keep(
      await client.complete({
        ref: { type: "ref/resource", uri: "cloudg://assets/{+ref}" },
        argument: { name: "ref", value: "" },
        context: { arguments: { dataset: "sample" } },
      }),
    );
    assert.ok(withContext.completion.values.length > 0);
    const all = wire.join("\n");
    assert.deepEqual(leaks(all, real.accounts), [], "no real account id");
    assert.deepEqual(leaks(all, real.arns), [], "no real ARN");
    assert.deepEqual(leaks(all, real.ips), [], "no real IP");
    assert.deepEqual(leaks(all, real.emails), [], "no real e-mail address");
    const quoted = assetNames().filter((name) =>
      all.includes(`\"${name}\"`) || all.includes(`"${name}"`)
    );
    assert.deepEqual(quoted, [], "no real asset name or id as a value");
    assert.ok(session.policy.vault.size > 20, "the vault issued tokens");
  } finally {
    await session.close();
  }
});

Deno.test("the same scan finds the real values in an open session (so the strict scan can fail)", async () => {
  const real = originals();
  const session = await policySession("open");
  try {
    const read = await session.client.readResource({ uri: "cloudg://assets/bastion" });
    const summary = await session.client.callTool({
      name: "dataset_summary",
      arguments: { dataset: "sample" },
    });
    const wire = JSON.stringify([read, summary]);
    assert.ok(leaks(wire, real.arns).length > 0, "an ARN shows in the open");
    assert.ok(leaks(wire, [...real.accounts, ...real.ips]).length > 0, "an account or IP shows");
  } finally {
    await session.close();
  }
});

Deno.test("under strict, error details (the value asked for, suggestions) pass the transforms too", async () => {
  const session = await policySession("strict");
  try {
    const missing = "arn:aws:iam::111111111111:role/no-such-role";
    let data = "";
    try {
      await session.client.readResource({ uri: `cloudg://assets/${encodeURIComponent(missing)}` });
    } catch (error) {
      data = JSON.stringify(error);
    }
    assert.ok(data.length > 0, "the read failed");
    assert.ok(!data.includes("111111111111"), data);
    const tool = await session.client.callTool({
      name: "dataset_summary",
      arguments: { dataset: "10.0.2.12" },
    });
    assert.equal(tool.isError, true);
    assert.ok(!JSON.stringify(tool).includes("10.0.2.12"), JSON.stringify(tool));
  } finally {
    await session.close();
  }
});

/** The demo's asset names a pseudonymising profile must hide (not ids or ARNs themselves). */
function assetNames(): string[] {
  const { assets } = sampleRecords();
  return [
    ...new Set(
      assets.flatMap((a) => [a.name, a.id]).filter((n) =>
        n.length >= 3 && !n.startsWith("arn:") && !n.startsWith("/")
      ),
    ),
  ];
}

Deno.test("under strict, asset names complete to pseudonyms, a pseudonym prefix completes, and the pseudonym reads the asset", async () => {
  const names = assetNames();
  assert.ok(names.includes("bastion") && names.length > 10);
  const session = await policySession("strict");
  const { client } = session;
  const complete = async (value: string): Promise<string[]> =>
    ((await client.complete({
      ref: { type: "ref/resource", uri: "cloudg://assets/{+ref}" },
      argument: { name: "ref", value },
      context: { arguments: { dataset: "sample" } },
    })).completion.values) as string[];
  try {
    const all = await complete("");
    assert.ok(all.length > 10);
    assert.deepEqual(all.filter((value) => names.includes(value)), [], "no real name completes");
    const typed = await complete("bas");
    assert.equal(typed.length, 2, "bastion and bastion-admin, as pseudonyms");
    for (const value of typed) assert.match(value, /^res-[0-9a-f]{10}$/);
    const token = typed[0]!;
    assert.deepEqual(
      await complete(token.slice(0, 7)),
      [token],
      "the pseudonym's prefix completes",
    );
    const read = await client.readResource({ uri: `cloudg://assets/${token}` });
    const got = await client.callTool({ name: "get_asset", arguments: { ref: token } });
    const found = await client.callTool({
      name: "find_assets",
      arguments: { query: "web", dataset: "sample" },
    });
    assert.ok(!got.isError && !found.isError, JSON.stringify([got, found]).slice(0, 500));
    const wire = JSON.stringify([read, got, found]);
    assert.ok(wire.includes(token), "the asset read back under its pseudonym");
    assert.ok(
      (found.structuredContent as Loose).result.total > 0,
      "find_assets found the web assets",
    );
    assert.deepEqual(names.filter((name) => wire.includes(`"${name}"`)), [], "no real name");
    assert.ok(!/\bbastion\b/.test(wire), "no mention of the name in free text");
  } finally {
    await session.close();
  }
});

Deno.test("under standard, asset names are shown as they are", async () => {
  const session = await policySession("standard");
  try {
    const answer = await session.client.complete({
      ref: { type: "ref/resource", uri: "cloudg://assets/{+ref}" },
      argument: { name: "ref", value: "bas" },
      context: { arguments: { dataset: "sample" } },
    });
    assert.deepEqual(answer.completion.values, ["bastion", "bastion-admin"]);
  } finally {
    await session.close();
  }
});
