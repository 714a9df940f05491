/**
 * How sensitive asset types and ports are, as the scores and exposure
 * queries weigh them (spec §5.2, §5.5).
 *
 * @module
 */

/** Crown-jewel weight by asset type (attack-path targets); types not listed weigh 0. */
export const CROWN_JEWEL_WEIGHTS: Readonly<Record<string, number>> = {
  RDS_INSTANCE: 10,
  AURORA_CLUSTER: 10,
  AZURE_SQL: 10,
  CLOUD_SQL: 10,
  DYNAMODB_TABLE: 9,
  DATA_WAREHOUSE: 9,
  SECRET: 9,
  KEY_VAULT: 9,
  KMS_KEY: 8,
  S3_BUCKET: 8,
  BLOB_STORAGE: 8,
  GCS_BUCKET: 8,
  FILE_SYSTEM: 7,
  SEARCH_DOMAIN: 7,
  CACHE_CLUSTER: 6,
  ACCESS_KEY: 6,
  IAM_ROLE: 5,
  IAM_USER: 5,
};

/** The crown-jewel weight of an asset type (0 when it is not a crown jewel). */
export function crownJewelWeight(assetType: string): number {
  return CROWN_JEWEL_WEIGHTS[assetType] ?? 0;
}

/** Sensitive data stores: the types the network blast-radius score adds 2.0 for. */
export const SENSITIVE_DATA_STORES: ReadonlySet<string> = new Set([
  "RDS_INSTANCE",
  "AURORA_CLUSTER",
  "AZURE_SQL",
  "CLOUD_SQL",
  "DYNAMODB_TABLE",
]);

/** Ports that matter when open to the internet (SSH, RDP, databases, search, admin HTTP). */
export const SENSITIVE_PORTS: readonly number[] = [
  22,
  3389,
  3306,
  5432,
  1433,
  27017,
  6379,
  9200,
  5601,
  8080,
  8443,
];
