import assert from "node:assert/strict";
import {
  DOC_TOPIC_NAMES,
  docTopicIndex,
  MAX_TOPIC_CHARS,
  readDocTopic,
} from "../src/cloud/docs/topics.ts";
import { UnknownTopicError } from "../src/cloud/model/errors.ts";

Deno.test("DOC_TOPIC_NAMES lists mcp then the 17 topics in reference order", () => {
  assert.equal(DOC_TOPIC_NAMES.length, 18);
  assert.equal(DOC_TOPIC_NAMES[0], "mcp");
  assert.deepEqual(DOC_TOPIC_NAMES.filter((t) => t.startsWith("d")), [
    "data-models",
    "dependencies",
  ]);
  assert.deepEqual(Object.keys(docTopicIndex()), [...DOC_TOPIC_NAMES]);
});

Deno.test("readDocTopic() serves every topic as markdown starting with a heading", () => {
  for (const topic of DOC_TOPIC_NAMES) {
    const text = readDocTopic(topic);
    assert.match(text, /^# \S/, topic);
    assert.ok(text.length > 100 && text.length <= MAX_TOPIC_CHARS, topic);
    assert.ok(!/cloudg (is|does)/i.test(text), topic);
  }
  assert.match(readDocTopic("data-models"), /risk score/);
});

Deno.test("readDocTopic() refuses an unknown topic, listing the topics", () => {
  assert.throws(() => readDocTopic("nope"), (e: unknown) => {
    assert.ok(e instanceof UnknownTopicError);
    assert.equal(e.data.value, "nope");
    assert.match(e.message, /mcp, pipeline/);
    return true;
  });
});
