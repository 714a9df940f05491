import assert from "node:assert/strict";
import {
  assetBrief,
  assetUri,
  edgeBrief,
  encodeUriPart,
  findingBrief,
  hopBrief,
} from "../src/cloud/model/briefs.ts";
import {
  cursorFingerprint,
  decodeCursor,
  encodeCursor,
  paginate,
} from "../src/cloud/model/cursors.ts";
import { ASSET_TYPES, SEVERITIES } from "../src/cloud/model/enums.ts";
import {
  AmbiguousAssetError,
  InvalidArgumentError,
  InvalidCursorError,
  InvalidEnumError,
  StaleCursorError,
  UnknownAssetError,
} from "../src/cloud/model/errors.ts";
import { parseEnum } from "../src/cloud/model/parse_enum.ts";
import type { Asset } from "../src/cloud/model/records.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { assetIndex, lookupAsset, resolveAsset } from "../src/cloud/model/references.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";

function plainAsset(id: string, name: string, arn: string | null): Asset {
  return {
    id,
    arn,
    name,
    asset_type: "OTHER",
    provider: "AWS",
    region: "global",
    account_id: null,
    tags: {},
    metadata: {},
    collected_at: "",
    is_internet_exposed: false,
  };
}

Deno.test("parseEnum() matches case-insensitively with - and space as _", () => {
  assert.equal(parseEnum("high", SEVERITIES), "HIGH");
  assert.equal(parseEnum("lambda-function", ASSET_TYPES), "LAMBDA_FUNCTION");
  assert.equal(parseEnum(" Lambda Function ", ASSET_TYPES), "LAMBDA_FUNCTION");
  assert.equal(parseEnum("JSON LD", ["turtle", "json-ld"]), "json-ld");
});

Deno.test("parseEnum() misses list close matches and the valid values, not the value", () => {
  assert.throws(() => parseEnum("hihg", SEVERITIES, { label: "severity" }), (e: unknown) => {
    assert.ok(e instanceof InvalidEnumError);
    assert.deepEqual(e.data.close_matches, ["HIGH"]);
    assert.deepEqual(e.data.valid, [...SEVERITIES]);
    assert.equal(e.data.value, "hihg");
    assert.ok(!e.message.includes("hihg"));
    assert.match(e.message, /CRITICAL, HIGH, MEDIUM, LOW, INFO/);
    return true;
  });
  assert.throws(() => parseEnum("LAMBDA_FUNC", ASSET_TYPES), (e: unknown) => {
    assert.ok(e instanceof InvalidEnumError);
    assert.ok(e.data.close_matches!.length <= 3);
    assert.equal(e.data.close_matches![0], "LAMBDA_FUNCTION");
    assert.equal(e.data.valid!.length, ASSET_TYPES.length);
    assert.match(e.message, /and \d+ more/);
    return true;
  });
  assert.throws(() => parseEnum("", SEVERITIES), InvalidEnumError);
});

Deno.test("resolveAsset() walks the six tiers on the demo estate", () => {
  const view = demoWorkspace().dataset("sample");
  const cases: [string, string, number][] = [
    ["web-1", "web-1", 1],
    ["arn:aws:rds:us-east-1:111111111111:db:orders-db", "orders-db", 2],
    ["prod-data", "data-bucket", 3],
    ["i-0a00000000000b002", "web-2", 4],
    ["function:api-handler", "api-handler", 5],
    ["PROD-LOGS", "logs-bucket", 6],
  ];
  for (const [ref, id, tier] of cases) {
    const found = lookupAsset(assetIndex(view), ref);
    assert.equal(found.kind, "found", ref);
    if (found.kind === "found") assert.deepEqual([found.asset.id, found.tier], [id, tier], ref);
    assert.equal(resolveAsset(view, ref).id, id);
  }
});

Deno.test("resolveAsset() misses carry suggestions; the message never echoes the ref", () => {
  const view = demoWorkspace().dataset("sample");
  assert.throws(() => resolveAsset(view, "bastoin"), (e: unknown) => {
    assert.ok(e instanceof UnknownAssetError);
    assert.equal(e.data.value, "bastoin");
    assert.equal(e.data.dataset, "sample");
    const hints = e.data.suggestions as { name: string; dataset: string }[];
    assert.ok(hints.some((h) => h.name === "bastion"));
    assert.ok(hints.length <= 5);
    assert.ok(!e.message.includes("bastoin"));
    return true;
  });
  assert.throws(() => resolveAsset(view, "orders"), (e: unknown) => {
    assert.ok(e instanceof UnknownAssetError);
    const hints = e.data.suggestions as { id: string }[];
    // Substring hits on name or ARN first, then similar names.
    assert.deepEqual(hints.map((h) => h.id).slice(0, 2), ["orders-db", "db-secret"]);
    return true;
  });
});

Deno.test("resolveAsset() on a shared name is ambiguous and skips the later tiers", () => {
  const workspace = new Workspace();
  const records = emptyRecords();
  records.assets.push(
    plainAsset("a1", "web", "arn:aws:ec2:us-east-1:1:instance/web"),
    plainAsset("a2", "web", null),
    plainAsset("a3", "WEB", null),
  );
  workspace.add("dupes", records);
  const view = workspace.dataset("dupes");
  assert.throws(() => resolveAsset(view, "web"), (e: unknown) => {
    assert.ok(e instanceof AmbiguousAssetError);
    assert.deepEqual(e.data.ambiguous, ["a1", "a2"]);
    assert.equal((e.data.candidates as unknown[]).length, 2);
    return true;
  });
  assert.equal(resolveAsset(view, "WEB").id, "a3");
  assert.equal(resolveAsset(view, "arn:aws:ec2:us-east-1:1:instance/web").id, "a1");
});

Deno.test("resolveAsset() handles ids with /, :, spaces and non-ASCII", () => {
  const workspace = new Workspace();
  const records = emptyRecords();
  const odd = [
    plainAsset("vm/with/slashes", "slashy", "/subscriptions/s1/resourceGroups/g/vm/Zürich box"),
    plainAsset("id:with:colons", "colony", null),
    plainAsset("id with spaces", "spacey", null),
    plainAsset("名前-ü", "unicode", null),
  ];
  records.assets.push(...odd);
  workspace.add("odd", records);
  const view = workspace.dataset("odd");
  for (const asset of odd) {
    assert.equal(resolveAsset(view, asset.id).id, asset.id);
    assert.equal(resolveAsset(view, asset.name).id, asset.id);
    const uri = assetUri(asset);
    assert.match(uri, /^cloudg:\/\/assets\/[A-Za-z0-9%._~-]+$/);
    const back = decodeURIComponent(uri.slice("cloudg://assets/".length));
    assert.equal(resolveAsset(view, back).id, asset.id);
  }
  assert.equal(resolveAsset(view, "Zürich box").id, "vm/with/slashes");
  assert.equal(encodeUriPart("0.0.0.0/0"), "0.0.0.0%2F0");
  assert.equal(encodeUriPart("a!b'(c)*"), "a%21b%27%28c%29%2A");
});

Deno.test("briefs: asset, hop, edge and finding shapes on the demo estate", () => {
  const view = demoWorkspace().dataset("sample");
  const sg = view.asset("sg-admin")!;
  assert.deepEqual(assetBrief(view, sg), {
    id: "sg-admin",
    name: "sg-admin",
    type: "SECURITY_GROUP",
    provider: "AWS",
    region: "us-east-1",
    account_id: "111111111111",
    arn: "arn:aws:ec2:us-east-1:111111111111:security-group/sg-0a1000000000000b3",
    internet_exposed: true,
    open_findings: 1,
    max_severity: "CRITICAL",
    uri: "cloudg://assets/arn%3Aaws%3Aec2%3Aus-east-1%3A111111111111%3Asecurity-group" +
      "%2Fsg-0a1000000000000b3",
  });
  assert.deepEqual(hopBrief(view, "0.0.0.0/0"), {
    id: "0.0.0.0/0",
    name: "0.0.0.0/0",
    type: "EXTERNAL",
    external: true,
  });
  const hop = hopBrief(view, "acct-vendor");
  assert.ok(!("max_severity" in hop));
  const trust = view.records.edges.find((e) => e.id === "e35")!;
  const brief = edgeBrief(view, trust);
  assert.equal(brief.cross_account, true);
  assert.equal(brief.source_name, "vendor");
  assert.ok(!("direction" in brief));
  const ssh = edgeBrief(view, view.records.edges.find((e) => e.id === "e11")!);
  assert.deepEqual([ssh.direction, ssh.ports, ssh.port_range, ssh.source_name], [
    "ingress",
    [22],
    "22",
    "0.0.0.0/0",
  ]);
  const ghost = findingBrief(view, view.records.findings.find((f) => f.id === "f-ghost")!);
  assert.deepEqual([ghost.asset_id, ghost.asset_name, ghost.uri], [
    null,
    null,
    "cloudg://findings/f-ghost",
  ]);
  const cve = findingBrief(view, view.records.findings.find((f) => f.id === "f-web-cve")!);
  assert.deepEqual([cve.asset_id, cve.risk_score], ["web-1", 7.8]);
});

Deno.test("paginate() issues c<offset>.<12 hex> cursors and refuses stale or forged ones", () => {
  const workspace = demoWorkspace();
  const view = workspace.dataset("sample");
  const items = Array.from({ length: 7 }, (_, i) => i);
  const filters = { severity: "HIGH" };
  const first = paginate(items, { limit: 3, scope: view, filters });
  assert.deepEqual(first.items, [0, 1, 2]);
  assert.match(first.next_cursor!, /^c3\.[0-9a-f]{12}$/);
  assert.equal(first.truncated, true);
  const second = paginate(items, { limit: 3, cursor: first.next_cursor, scope: view, filters });
  assert.deepEqual([second.offset, second.items], [3, [3, 4, 5]]);
  const last = paginate(items, { limit: 3, cursor: second.next_cursor, scope: view, filters });
  assert.deepEqual([last.items, last.next_cursor, last.truncated, last.total], [
    [6],
    null,
    false,
    7,
  ]);
  // Other filters, or a changed dataset: stale.
  assert.throws(
    () => paginate(items, { limit: 3, cursor: first.next_cursor, scope: view, filters: {} }),
    StaleCursorError,
  );
  const other = workspace.dataset("after");
  assert.throws(
    () => paginate(items, { limit: 3, cursor: first.next_cursor, scope: other, filters }),
    StaleCursorError,
  );
  workspace.suppress(["f-ssh-open"], "bump the version");
  assert.throws(
    () => paginate(items, { limit: 3, cursor: first.next_cursor, scope: view, filters }),
    StaleCursorError,
  );
  // Forged or malformed.
  for (
    const bad of ["c3", "c3.XYZ", "3.abcdefabcdef", "c1234567890.abcdefabcdef", "c-1.aaaaaaaaaaaa"]
  ) {
    assert.throws(() => decodeCursor(bad, cursorFingerprint(view, filters)), InvalidCursorError);
  }
  assert.throws(
    () => decodeCursor(encodeCursor(3, "000000000000"), cursorFingerprint(view, filters)),
    StaleCursorError,
  );
  for (const limit of [0, 501, 2.5]) {
    assert.throws(() => paginate(items, { limit, scope: view, filters }), InvalidArgumentError);
  }
  // The limit is not part of the fingerprint.
  const wide = paginate(items, { limit: 2, scope: view, filters });
  assert.equal(
    paginate(items, { limit: 5, cursor: wide.next_cursor, scope: view, filters }).offset,
    2,
  );
});
