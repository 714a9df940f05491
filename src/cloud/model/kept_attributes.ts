/**
 * The configuration attributes an import keeps on its assets beyond the
 * normalised facts, which diff_datasets compares.
 *
 * @module
 */

/**
 * Configuration attributes kept as they are (scalars only, strings up to 200 characters) on
 * any resource that has them, so that diff_datasets sees a resized instance or an engine
 * upgrade. Other attributes are not kept and not compared.
 */
export const KEPT_ATTRIBUTES: readonly string[] = [
  "instance_type",
  "ami",
  "instance_class",
  "engine_version",
  "allocated_storage",
  "storage_type",
  "multi_az",
  "node_type",
  "number_of_nodes",
  "runtime",
  "memory_size",
  "timeout",
  "handler",
  "cidr_block",
  "deletion_protection",
  "backup_retention_period",
];
