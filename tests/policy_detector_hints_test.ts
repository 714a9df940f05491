import assert from "node:assert/strict";
import { BUILTIN_DETECTORS } from "../src/core/policy/detectors.ts";
import { compilePolicy } from "../src/core/policy/compile.ts";
import { loadPolicy } from "../src/core/policy/document.ts";
import type { PolicyRequest } from "../src/core/policy.ts";

// Strings a detector must find: each detector's hint and hint source must let them through.
const SECRETS = [
  "password=hunter22x",
  "PASSWORD = 'correct-horse'",
  'passwd: "s3cr3tvalue"',
  "pwd:abcdef12",
  '{"secret":"abcdefgh"}',
  "api_key = AbCdEf123456",
  "API-KEY:'zyxwvu987654'",
  "access_token=eyAbCdEfGh",
  'auth-token: "0123456789ab"',
  "Authorization: Bearer abcdefghijklmnopqrstu",
  "Authorization: Basic\tdXNlcjpwYXNzd29yZA==",
  "aws_secret_access_key = abcdefghijklmnopqrstuvwxyz0123456789ABCD",
];

// Procedure names that only contain the words: no detector can match them.
const IDENTIFIERS = [
  "_ZN4llvm11PassManagerINS_8FunctionEJEE3runERS1_",
  "_ZNK4llvm10BasicBlock14getTerminatorEv",
  "_ZN4llvm12DenseMapInfoINS_9StringRefEvE12getHashValueES1_",
  "_ZN4llvm8MCStreamer14emitTokenValueEv",
  "llvm::LegacyPassManager::add(llvm::Pass*)",
  "BasicAAResult::getModRefInfo",
];

function detector(name: string): (typeof BUILTIN_DETECTORS)[number] {
  const found = BUILTIN_DETECTORS.find((d) => d.name === name);
  if (!found) throw new Error(`no detector ${name}`);
  return found;
}

Deno.test("BUILTIN_DETECTORS: every hint and hint source lets through what the pattern matches", () => {
  let checked = 0;
  for (const text of SECRETS) {
    for (const d of BUILTIN_DETECTORS) {
      d.pattern.lastIndex = 0;
      if (!d.pattern.test(text)) continue;
      checked++;
      assert.ok(d.hint?.(text) ?? true, `${d.name} hint refuses ${text}`);
      if (d.hintSource !== undefined) {
        assert.ok(new RegExp(d.hintSource).test(text), `${d.name} hint source refuses ${text}`);
      }
    }
  }
  assert.ok(checked >= SECRETS.length, `only ${checked} detector matches`);
});

Deno.test("secret_assignment and authorization_header hints pass over names that only contain the words", () => {
  for (const name of ["secret_assignment", "authorization_header"]) {
    const d = detector(name);
    const source = new RegExp(d.hintSource!);
    for (const text of IDENTIFIERS) {
      assert.equal(d.hint!(text), false, `${name} hint takes ${text}`);
      assert.equal(source.test(text), false, `${name} hint source takes ${text}`);
    }
  }
});

Deno.test("the standard policy still redacts every secret and leaves the names alone", () => {
  const policy = compilePolicy(loadPolicy("standard"), { env: () => undefined });
  const request: PolicyRequest = { kind: "tool", name: "list_procedures", effects: {} };
  const out = policy.transform(request, { notes: SECRETS, names: IDENTIFIERS }) as {
    notes: string[];
    names: string[];
  };
  out.notes.forEach((text, i) => assert.notEqual(text, SECRETS[i], `kept ${SECRETS[i]}`));
  assert.deepStrictEqual(out.names, IDENTIFIERS);
});
