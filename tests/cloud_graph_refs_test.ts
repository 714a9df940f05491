import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { resolveGraphRef } from "../src/cloud/graph/graph_refs.ts";
import { GraphQueryError } from "../src/cloud/graph/errors.ts";
import { INTERNET_NODE } from "../src/cloud/graph/internet.ts";
import {
  AmbiguousAssetError,
  InvalidArgumentError,
  UnknownAssetError,
} from "../src/cloud/model/errors.ts";
import { asset, makeView, miniEstate } from "./helpers/cloud_estate.ts";

const W = "0.0.0.0/0";

Deno.test("resolveGraphRef() reads the internet, placeholders, then the asset tiers", () => {
  const view = miniEstate();
  strictEqual(resolveGraphRef(view, "internet"), W);
  strictEqual(resolveGraphRef(view, " PUBLIC "), W);
  strictEqual(resolveGraphRef(view, "::/0", { virtualInternet: true }), INTERNET_NODE);
  strictEqual(resolveGraphRef(view, W), W);
  strictEqual(resolveGraphRef(view, "web-1"), "web-1");
  strictEqual(resolveGraphRef(view, "arn:aws:test:::deploy-role"), "deploy-role");
});

Deno.test("resolveGraphRef() throws the asset errors with their data, and a bad argument without an internet", () => {
  const view = miniEstate();
  const unknown = (() => {
    try {
      resolveGraphRef(view, "web-3");
    } catch (error) {
      return error;
    }
  })();
  ok(unknown instanceof UnknownAssetError);
  ok(unknown.data.suggestions?.some((s) => (s as { id: string }).id === "web-1"));
  const twins = makeView({
    assets: [asset("a", "EC2", { name: "twin" }), asset("b", "EC2", { name: "twin" })],
  });
  throws(() => resolveGraphRef(twins, "twin"), AmbiguousAssetError);
  const closed = makeView({ assets: [asset("a", "EC2")] });
  const error = (() => {
    try {
      resolveGraphRef(closed, "internet");
    } catch (e) {
      return e;
    }
  })();
  ok(error instanceof GraphQueryError && error instanceof InvalidArgumentError);
  deepStrictEqual([error.kind, error.name], ["invalid_argument", "GraphQueryError"]);
});
