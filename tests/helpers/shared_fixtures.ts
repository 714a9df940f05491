/** Test helper: where the shared third-party fixtures are, beside the checkout. */

/** The path of `relative` under `../shared/fixtures/` (the checkout's sibling folder). */
export function sharedFixture(relative: string): string {
  return new URL(`../../../shared/fixtures/${relative}`, import.meta.url).pathname;
}
