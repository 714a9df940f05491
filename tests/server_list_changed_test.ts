import assert from "node:assert/strict";
import { createEvidence } from "../src/core/evidence.ts";
import { connect } from "./helpers/in_memory.ts";
import { ResourceListChangedNotificationSchema } from "./helpers/sdk_types.ts";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function record(i: number): ReturnType<typeof createEvidence> {
  return createEvidence({
    subject: null,
    provider: { id: "native", name: "n", version: "1" },
    predicate_type: "test/v1",
    operation: "page",
    parameters: { offset: i * 500 },
    normalized_result: { items: [{ address: `0x${i.toString(16)}`, value: `f${i}` }] },
  });
}

Deno.test("Evidence recorded in quick succession sends fewer resources/list_changed, the last after the last record", async () => {
  const { client, casefile, close } = await connect({ workbenches: [] });
  try {
    const received: number[] = [];
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      received.push(casefile.ledger.size);
    });
    // What the ledger held each time the server sent one.
    const sent: number[] = [];
    const sdk = casefile.server;
    const send = sdk.sendResourceListChanged.bind(sdk);
    sdk.sendResourceListChanged = () => {
      sent.push(casefile.ledger.size);
      return send();
    };
    const n = 60;
    for (let i = 0; i < n; i++) {
      await casefile.ledger.record(await record(i));
      if (i % 10 === 9) await sleep(1);
    }
    assert.equal(casefile.ledger.size, n);
    await sleep(200);
    assert.ok(sent.length >= 1 && sent.length < n, `${sent.length} notifications for ${n} records`);
    assert.equal(sent.at(-1), n, "a notification was sent after the last record");
    assert.equal(received.length, sent.length, "each one reached the client");
    // A duplicate changes nothing and sends nothing.
    await casefile.ledger.record(await record(0));
    await sleep(100);
    assert.equal(sent.length, received.length);
    assert.equal(sent.at(-1), n);
  } finally {
    await close();
  }
});

Deno.test("a record made long after the last burst is announced at once", async () => {
  const { client, casefile, close } = await connect({ workbenches: [] });
  try {
    let received = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      received++;
    });
    await casefile.ledger.record(await record(1));
    await sleep(100);
    assert.equal(received, 1);
    await casefile.ledger.record(await record(2));
    await sleep(5);
    assert.equal(received, 2, "no wait for a window when none is open");
  } finally {
    await close();
  }
});
