import assert from "node:assert/strict";
import { coalescedSignal } from "../src/core/coalesced_signal.ts";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("coalescedSignal() calls at once for a lone request, and not again", async () => {
  let calls = 0;
  const signal = coalescedSignal(() => calls++, 20);
  signal.request();
  assert.equal(calls, 1);
  await sleep(60);
  assert.equal(calls, 1);
});

Deno.test("coalescedSignal() folds a burst into one call now and one when the window ends", async () => {
  let calls = 0;
  const signal = coalescedSignal(() => calls++, 20);
  for (let i = 0; i < 100; i++) signal.request();
  assert.equal(calls, 1);
  await sleep(60);
  assert.equal(calls, 2);
});

Deno.test("coalescedSignal() calls after the last of requests spread over several windows", async () => {
  let requests = 0;
  const seen: number[] = [];
  const signal = coalescedSignal(() => seen.push(requests), 20);
  for (let i = 0; i < 30; i++) {
    requests++;
    signal.request();
    await sleep(3);
  }
  await sleep(60);
  assert.ok(seen.length < 30, `${seen.length} calls for 30 requests`);
  assert.ok(seen.length >= 2, `${seen.length} calls over ${30 * 3} ms`);
  assert.equal(seen.at(-1), 30, "the last call comes after the last request");
});

Deno.test("coalescedSignal() cancel() drops the pending call and leaves no timer behind", async () => {
  let calls = 0;
  const signal = coalescedSignal(() => calls++, 1000);
  signal.request();
  signal.request();
  signal.cancel();
  await sleep(10);
  assert.equal(calls, 1);
  signal.request();
  assert.equal(calls, 2, "a request after cancel() calls at once");
  signal.cancel();
});

Deno.test("coalescedSignal() refuses a window that is not a positive number", () => {
  for (const bad of [0, -5, Number.NaN, Infinity]) {
    assert.throws(() => coalescedSignal(() => {}, bad), RangeError);
  }
});
