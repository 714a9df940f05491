/**
 * The organisation view (`organization_topology`): the organisation, its
 * organisational units and accounts (and, when asked, its policies), from
 * the organisation discovery data when the dataset has it, else from the
 * organisation assets of the map.
 *
 * @module
 */

import { compareCodePoints } from "../model/order.ts";
import type { Json } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { countBy } from "../model/counts.ts";

/** Where the topology came from. */
export type TopologySource = "organization_discovery" | "map_assets" | null;

/** A JSON object. */
type JsonObject = { [key: string]: Json };

/** One account of the topology. */
export interface TopologyAccount {
  id: string;
  name: string | null;
  parent: string | null;
  status: string | null;
  /** Assets of the dataset in this account. */
  assets: number;
  external: boolean;
}

/** One organisational unit. */
export interface TopologyUnit {
  id: string;
  name: string | null;
  parent: string | null;
  /** Accounts directly under it. */
  accounts: number;
}

/** The organisation view. */
export interface OrganizationTopology {
  source: TopologySource;
  organization: {
    id: string | null;
    arn: string | null;
    management_account_id: string | null;
    root_id: string | null;
    control_tower: boolean;
    home_region: string | null;
    governed_regions: string[];
  } | null;
  ous: TopologyUnit[];
  accounts: TopologyAccount[];
  accounts_total: number;
  truncated: boolean;
  policies?: JsonObject[];
  hint?: string;
}

function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function str(value: Json | undefined): string | null {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : null;
}

function objects(value: Json | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function assetsPerAccount(view: DatasetView): Map<string, number> {
  return countBy(
    view.records.assets.filter((asset) => asset.account_id),
    (asset) => asset.account_id!,
  );
}

/**
 * The organisation topology: accounts in code-point order of their id (at
 * most `maxAccounts`), units in code-point order of theirs; policies only
 * with `includePolicies`.
 */
export function organizationTopology(
  view: DatasetView,
  options: { includePolicies?: boolean; maxAccounts?: number } = {},
): OrganizationTopology {
  const max = options.maxAccounts ?? 200;
  const perAccount = assetsPerAccount(view);
  const externalAccounts = new Set(
    view.records.assets.filter((a) =>
      a.asset_type === "CLOUD_ACCOUNT" && a.metadata["external"] === true && a.account_id
    ).map((a) => a.account_id!),
  );
  const org = view.records.organization;
  let out: OrganizationTopology;
  if (isObject(org)) {
    const tower = org["control_tower"];
    const towerOn = tower !== undefined && tower !== null && tower !== false &&
      !(isObject(tower) && tower["enabled"] === false);
    const governed = org["governed_regions"] ??
      (isObject(tower) ? tower["governed_regions"] : undefined);
    const accounts = objects(org["accounts"]).map((a): TopologyAccount => {
      const id = str(a["id"]) ?? "";
      return {
        id,
        name: str(a["name"]),
        parent: str(a["parent"] ?? a["parent_id"]),
        status: str(a["status"]),
        assets: perAccount.get(id) ?? 0,
        external: externalAccounts.has(id),
      };
    }).sort((a, b) => compareCodePoints(a.id, b.id));
    const units = objects(org["ous"] ?? org["organizational_units"]).map((u): TopologyUnit => {
      const id = str(u["id"]) ?? "";
      return {
        id,
        name: str(u["name"]),
        parent: str(u["parent"] ?? u["parent_id"]),
        accounts: accounts.filter((a) => a.parent === id).length,
      };
    }).sort((a, b) => compareCodePoints(a.id, b.id));
    out = {
      source: "organization_discovery",
      organization: {
        id: str(org["id"]),
        arn: str(org["arn"]),
        management_account_id: str(org["management_account_id"]),
        root_id: str(org["root_id"]),
        control_tower: towerOn,
        home_region: isObject(tower) ? str(tower["home_region"]) : null,
        governed_regions: Array.isArray(governed)
          ? governed.filter((r): r is string => typeof r === "string")
          : [],
      },
      ous: units,
      accounts: accounts.slice(0, max),
      accounts_total: accounts.length,
      truncated: accounts.length > max,
    };
    if (options.includePolicies) out.policies = objects(org["policies"]);
  } else {
    const assets = view.records.assets;
    const orgAsset = assets.find((a) => a.asset_type === "ORGANIZATION");
    const accountAssets = assets.filter((a) => a.asset_type === "CLOUD_ACCOUNT");
    const unitAssets = assets.filter((a) => a.asset_type === "ORG_UNIT");
    if (!orgAsset && accountAssets.length === 0 && unitAssets.length === 0) {
      return {
        source: null,
        organization: null,
        ous: [],
        accounts: [],
        accounts_total: 0,
        truncated: false,
        ...(options.includePolicies ? { policies: [] } : {}),
        hint: "The dataset has no organisation discovery data and no ORGANIZATION, ORG_UNIT " +
          "or CLOUD_ACCOUNT assets; list_accounts still groups its assets by account.",
      };
    }
    const parentOf = (meta: JsonObject): string | null =>
      str(meta["parent"] ?? meta["parent_id"] ?? meta["ou_id"]);
    const accounts = accountAssets.map((a): TopologyAccount => {
      const id = a.account_id ?? a.id;
      return {
        id,
        name: a.name,
        parent: parentOf(a.metadata),
        status: str(a.metadata["status"]),
        assets: perAccount.get(id) ?? 0,
        external: a.metadata["external"] === true,
      };
    }).sort((a, b) => compareCodePoints(a.id, b.id));
    out = {
      source: "map_assets",
      organization: orgAsset
        ? {
          id: str(orgAsset.metadata["organization_id"]) ?? orgAsset.id,
          arn: orgAsset.arn,
          management_account_id: str(orgAsset.metadata["management_account_id"]),
          root_id: str(orgAsset.metadata["root_id"]),
          control_tower: false,
          home_region: null,
          governed_regions: [],
        }
        : null,
      ous: unitAssets.map((u): TopologyUnit => ({
        id: u.id,
        name: u.name,
        parent: parentOf(u.metadata),
        accounts: accounts.filter((a) => a.parent === u.id).length,
      })).sort((a, b) => compareCodePoints(a.id, b.id)),
      accounts: accounts.slice(0, max),
      accounts_total: accounts.length,
      truncated: accounts.length > max,
    };
    if (options.includePolicies) {
      out.policies = assets.filter((a) => a.asset_type === "ORG_POLICY").map((p) => ({
        id: p.id,
        name: p.name,
        arn: p.arn,
      }));
    }
  }
  return out;
}
