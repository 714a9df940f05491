/**
 * The intersection of two IAM action patterns, which a permissions boundary
 * takes of each identity pattern, matches exactly the actions both patterns
 * match. Checked against the patterns' own matcher on every action named in
 * a real authorization-details export (cloudsplaining's example: 2,103
 * action strings of AWS-managed and customer policies), for every pair of
 * patterns of a service: the export's wildcard patterns and patterns cut
 * from its action names (a prefix, a suffix, both, a `?` in place of a
 * character).
 */

import assert from "node:assert/strict";
import {
  grantsOnResource,
  intersectActionPatterns,
  parsePolicy,
  wildcardMatch,
  withinBoundary,
} from "../src/cloud/importers/iam_policy.ts";
import { sharedFixture } from "./helpers/shared_fixtures.ts";

const FILE = sharedFixture("cloud/cloudsplaining/example-authz-details.json");

/** Every `Action` and `NotAction` string of the export. */
function exportActions(): string[] {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      if (key === "Action" || key === "NotAction") {
        for (const a of Array.isArray(child) ? child : [child]) {
          if (typeof a === "string") found.add(a);
        }
      } else walk(child);
    }
  };
  walk(JSON.parse(Deno.readTextFileSync(FILE)));
  return [...found];
}

const matches = (pattern: string, action: string) =>
  wildcardMatch(pattern, action, { ignoreCase: true });

Deno.test("intersectActionPatterns() matches exactly what both patterns match, on a real export's actions", () => {
  const all = exportActions();
  assert.ok(all.length > 2000, `${all.length} action strings`);
  const byService = new Map<string, { literal: string[]; wild: string[] }>();
  for (const action of all) {
    const service = action.split(":")[0]!.toLowerCase();
    if (!action.includes(":")) continue;
    const entry = byService.get(service) ?? { literal: [], wild: [] };
    (action.includes("*") || action.includes("?") ? entry.wild : entry.literal).push(action);
    byService.set(service, entry);
  }
  let pairs = 0;
  let nonEmpty = 0;
  let partial = 0;
  for (const [service, { literal, wild }] of byService) {
    if (literal.length < 8) continue;
    // Patterns cut from a stride of the service's names, beside the export's own.
    const cut: string[] = [];
    for (const name of literal.filter((_, k) => k % Math.ceil(literal.length / 6) === 0)) {
      const local = name.slice(name.indexOf(":") + 1);
      if (local.length < 6) continue;
      cut.push(
        `${service}:${local.slice(0, 3)}*`,
        `${service}:*${local.slice(-5)}`,
        `${service}:${local.slice(0, 2)}*${local.slice(-3)}`,
        `${service}:${local.slice(0, 1)}?${local.slice(2)}`,
        `*${local.slice(1, 4)}*`,
      );
    }
    const patterns = [...new Set([...wild, ...cut, `${service}:*`, "*"])];
    for (const a of patterns) {
      for (const b of patterns) {
        const result = intersectActionPatterns(a, b);
        assert.ok(result !== null, `${a} ∩ ${b}: too many patterns`);
        pairs++;
        let both = 0;
        for (const action of literal) {
          const expected = matches(a, action) && matches(b, action);
          const got = result.some((r) => matches(r, action));
          assert.equal(got, expected, `${a} ∩ ${b} = ${JSON.stringify(result)} on ${action}`);
          if (expected) both++;
        }
        if (both > 0) nonEmpty++;
        if (both > 0 && !matches(a, b) && !matches(b, a)) partial++;
      }
    }
  }
  console.log(`${pairs} pattern pairs, ${nonEmpty} sharing actions, ${partial} of them partly`);
  assert.ok(pairs > 5000 && partial > 100, `${pairs} pairs, ${partial} partial overlaps`);
});

Deno.test("withinBoundary() keeps what two wildcard patterns neither of which covers the other both allow", () => {
  const bucket = "arn:aws:s3:::b";
  const policy = (action: string | string[]) =>
    parsePolicy({
      Version: "2012-10-17",
      Statement: [{ Effect: "Allow", Action: action, Resource: "*" }],
    });
  const grant = (identity: string | string[], boundary: string | string[]) =>
    withinBoundary(grantsOnResource(policy(identity), bucket), policy(boundary), bucket);
  // s3:GetObject and s3:GetObjectVersion... are allowed by both; the grant stands, exactly.
  const partial = grant("s3:Get*", "s3:*Object");
  assert.deepEqual([partial.granted, partial.conditional, partial.actions], [
    true,
    false,
    ["s3:Get*Object"],
  ]);
  assert.ok(matches(partial.actions[0]!, "s3:GetObject"));
  assert.ok(!matches(partial.actions[0]!, "s3:GetBucketPolicy"));
  // Where the prefix and suffix overlap, the overlapping action too.
  assert.deepEqual(grant("s3:GetO*", "s3:*Object").actions.sort(), [
    "s3:GetO*Object",
    "s3:GetObject",
  ]);
  // Disjoint: nothing left.
  assert.equal(grant("s3:Get*", "s3:Put*").granted, false);
});
