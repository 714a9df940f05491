/**
 * Vault persistence (`vault.path`): pseudonyms survive a restart, the file
 * is sealed and private, and a wrong key, an altered file or a missing key
 * are refused with a clear error.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { compilePolicy } from "../src/core/policy/compile.ts";
import { loadPolicy, type PolicyDocument } from "../src/core/policy/document.ts";
import { childEnv, denoArgs } from "./helpers/spawn.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const SRC = new URL("../src", import.meta.url).pathname;

function strictWithVault(path: string, extra: Record<string, unknown> = {}): PolicyDocument {
  return loadPolicy(
    JSON.stringify({ extends: "strict", vault: { key: "k1-secret", path, ...extra } }),
  );
}

Deno.test("a persisted vault reloads its tokens under the same key, sealed in a 0600 file", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/vault.json`;
    const first = compilePolicy(strictWithVault(path));
    const token = first.vault.token("aws_account_id", "123456789012");
    assert.notEqual(token, "123456789012");
    assert.equal(first.vaultFile?.save(), true);
    const bytes = await Deno.readTextFile(path);
    assert.ok(!bytes.includes("123456789012"), "the original is not in the file");
    assert.ok(!bytes.includes(token), "nor is the token");
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const second = compilePolicy(strictWithVault(path));
    assert.deepEqual(second.vault.lookup(token), {
      value: "123456789012",
      entity: "aws_account_id",
    });
    const memoryOnly = compilePolicy(loadPolicy(JSON.stringify({
      extends: "strict",
      vault: { key: "k1-secret" },
    })));
    assert.equal(memoryOnly.vault.lookup(token), undefined, "without the file it does not resolve");
  });
});

Deno.test("encrypt: false keeps a readable token table", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/vault.json`;
    const policy = compilePolicy(strictWithVault(path, { encrypt: false }));
    const token = policy.vault.token("email", "ann@example.org");
    policy.vaultFile!.save();
    const doc = JSON.parse(await Deno.readTextFile(path));
    assert.equal(doc.encrypted, false);
    assert.deepEqual(doc.entries, [[token, "ann@example.org", "email"]]);
  });
});

Deno.test("a vault file is refused under another key, when altered, and a path without a key", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/vault.json`;
    const policy = compilePolicy(strictWithVault(path));
    policy.vault.token("aws_account_id", "123456789012");
    policy.vaultFile!.save();
    assert.throws(
      () =>
        compilePolicy(loadPolicy(JSON.stringify({
          extends: "strict",
          vault: { key: "another", path },
        }))),
      /written under another key/,
    );
    const doc = JSON.parse(await Deno.readTextFile(path));
    const data = atob(doc.data);
    doc.data = btoa(String.fromCharCode(data.charCodeAt(0) ^ 1) + data.slice(1));
    await Deno.writeTextFile(path, JSON.stringify(doc));
    assert.throws(() => compilePolicy(strictWithVault(path)), /does not decrypt/);
    assert.throws(
      () =>
        compilePolicy(loadPolicy(JSON.stringify({ extends: "strict", vault: { path } })), {
          env: () => undefined,
        }),
      /vault\.path needs a stable key/,
    );
  });
});

async function serve(dir: string, policyFile: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: denoArgs(["--policy", policyFile, "--demo", "--toolsets", "cloud"], {
      allowRead: [dir, SRC],
      allowEnv: "CASEFILE_VAULT_KEY",
    }).toSpliced(2, 0, `--allow-write=${dir}`),
    env: childEnv({ CASEFILE_VAULT_KEY: "a-key-kept-by-the-operator" }),
    stderr: "pipe",
  });
  const client = new Client({ name: "vault-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

Deno.test("through the CLI, a pseudonym a client received before a restart still resolves after it", async () => {
  await withTempDir(async (dir) => {
    const policyFile = `${dir}/policy.yaml`;
    const vaultPath = `${dir}/vault.json`;
    await Deno.writeTextFile(
      policyFile,
      `extends: strict\nvault:\n  path: ${vaultPath}\n`,
    );
    const before = await serve(dir, policyFile);
    const answer = await before.complete({
      ref: { type: "ref/resource", uri: "cloudg://assets/{+ref}" },
      argument: { name: "ref", value: "bastion-a" },
    });
    const token = answer.completion.values[0]!;
    assert.match(token, /^res-[0-9a-f]{10}$/);
    await before.close();
    // The server saves at shutdown; wait for the file.
    for (let i = 0; i < 100; i++) {
      if (await Deno.stat(vaultPath).then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const after = await serve(dir, policyFile);
    try {
      const read = await after.readResource({ uri: `cloudg://assets/${token}` });
      const text = (read.contents[0] as { text: string }).text;
      assert.ok(text.includes(token) && text.includes("IAM_ROLE"), text.slice(0, 300));
    } finally {
      await after.close();
    }
  });
});
