/**
 * The secret-assignment detector tells the shell's working-directory
 * variables (PWD, OLDPWD) from passwords: a captured program printing its
 * working directory shows it under the standard policy, while PASSWORD=,
 * PASSWD=, DB_PASS= and the like stay redacted.
 */

import assert from "node:assert/strict";
import { BUILTIN_DETECTORS } from "../src/core/policy/detectors.ts";
import { hasProgram } from "./helpers/in_memory.ts";
import { capturedStdout, directStdout, withScriptCaptures } from "./helpers/script_capture.ts";

const LINUX = Deno.build.os === "linux";
const SH = hasProgram("sh");
if (!LINUX || !SH) console.log("skip: not Linux or sh missing; the capture test is ignored");

const DETECTOR = BUILTIN_DETECTORS.find((d) => d.name === "secret_assignment")!;

/** Whether the secret-assignment detector (hint, then pattern) takes `text`. */
function taken(text: string): boolean {
  DETECTOR.pattern.lastIndex = 0;
  return (DETECTOR.hint?.(text) ?? true) && DETECTOR.pattern.test(text);
}

const PASSWORDS = [
  "PASSWORD=hunter2xyz",
  "PASSWD=abcdef12",
  "DB_PASS=abcdef12",
  "db-pass: 's3cr3tvalue'",
  "DB_PASSWORD=xyz12345",
  "MYSQL_PWD=abcdef12",
  "pwd:abcdef12",
  "client_secret=abcdefgh",
  "GOOGLE_API_KEY=AbCdEf123456",
];
const NOT_SECRETS = [
  "PWD=/home/user/project",
  "OLDPWD=/tmp/build",
  "pwd: /var/lib/app",
  "PWD='~/src'",
  "tests pass: 12/12 done",
  "PASSWORD_FILE=/run/secrets/db",
];

Deno.test("secret_assignment takes passwords with or without a name prefix", () => {
  for (const text of PASSWORDS) assert.ok(taken(text), `${text} must be redacted`);
});

Deno.test("secret_assignment leaves PWD and OLDPWD holding a path, and bare 'pass:' alone", () => {
  for (const text of NOT_SECRETS) assert.ok(!taken(text), `${text} is not a secret`);
});

Deno.test({
  name:
    "capture_process_scenario under the standard policy shows PWD= and OLDPWD= as the program printed them and redacts PASSWORD=, PASSWD= and DB_PASS=",
  ignore: !LINUX || !SH,
  fn: async () => {
    await withScriptCaptures(async ({ dir, script, capture }) => {
      const path = await script(
        "env.sh",
        [
          'cd bin && cd .. && echo "PWD=$(pwd)" && echo "OLDPWD=$OLDPWD"',
          "echo PASSWORD=hunter2xyz",
          "echo PASSWD=abcdef12",
          "echo DB_PASS=abcdef12",
        ].join("\n"),
      );
      const peer = new TextDecoder().decode(await directStdout(path, dir)).split("\n");
      assert.deepEqual(peer.slice(0, 2), [`PWD=${dir}`, `OLDPWD=${dir}/bin`], "the peer run");
      const shown = capturedStdout(await capture(path)).split("\n");
      assert.deepEqual(shown.slice(0, 2), peer.slice(0, 2), "the working directories are shown");
      for (const [i, name] of ["PASSWORD", "PASSWD", "DB_PASS"].entries()) {
        assert.ok(peer[2 + i]!.startsWith(`${name}=`));
        assert.match(shown[2 + i]!, new RegExp(`^${name}=\\[REDACTED`), shown[2 + i]);
      }
    });
  },
});
