/**
 * Small Terraform plans (the JSON of `terraform show -json PLANFILE`) built
 * inline for importer tests.
 *
 * @module
 */

/** A managed resource as a plan's `planned_values` lists it. */
export function plannedResource(
  type: string,
  name: string,
  values: unknown,
): { address: string; mode: string; type: string; name: string; values: unknown } {
  return { address: `${type}.${name}`, mode: "managed", type, name, values };
}

/**
 * A plan of `resources` in its root module, changing nothing unless `extra`
 * says (`resource_changes`, `configuration`, … replace the defaults).
 */
export function planOf(
  resources: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    format_version: "1.2",
    terraform_version: "1.5.7",
    planned_values: { root_module: { resources } },
    resource_changes: [],
    ...extra,
  };
}
