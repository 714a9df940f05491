/**
 * Test helper: a fresh temporary directory for the length of one callback.
 *
 * @module
 */

/**
 * Runs `body` with a fresh temporary directory (named with `prefix` when
 * given), then removes the directory and all it holds, also when `body` throws.
 */
export async function withTempDir<T>(
  body: (dir: string) => Promise<T>,
  options: { prefix?: string; realPath?: boolean } = {},
): Promise<T> {
  const made = await Deno.makeTempDir(
    options.prefix === undefined ? {} : { prefix: options.prefix },
  );
  const dir = options.realPath ? Deno.realPathSync(made) : made;
  try {
    return await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
