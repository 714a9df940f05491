/**
 * Function discovery on a stripped executable: the Deno binary running this
 * bench (stripped, as Deno ships it), opened afresh each run; the first
 * `list_procedures` page reads the rest of the file, parses it and sweeps
 * its code for call targets, since no symbol table names its functions.
 * There is no peer that does the same work, so this is a figure (median,
 * min and max over the runs), not a ratio.
 *
 * @module
 */

import { type BenchContext, BenchServer, spread, structured } from "../harness.ts";
import { mib, rootOf } from "../library.ts";

/** Whether `path` is an ELF file without a static symbol table (`.symtab`). */
async function strippedElf(path: string): Promise<boolean> {
  const file = await Deno.open(path);
  try {
    const head = new Uint8Array(64);
    await file.read(head);
    if (head[0] !== 0x7f || head[1] !== 0x45 || head[2] !== 0x4c || head[3] !== 0x46) return false;
  } finally {
    file.close();
  }
  const readelf = await new Deno.Command("readelf", { args: ["-S", "-W", path], stdout: "piped" })
    .output().catch(() => null);
  if (readelf === null || !readelf.success) return false;
  return !/\s\.symtab\s/.test(new TextDecoder().decode(readelf.stdout));
}

/** Runs the discovery measure. */
export default async function discovery(ctx: BenchContext): Promise<void> {
  const path = Deno.realPathSync(Deno.execPath());
  if (!await strippedElf(path)) {
    return ctx.log(`skip: ${path} is not a stripped ELF executable (or readelf is missing)`);
  }
  const name = path.slice(path.lastIndexOf("/") + 1);
  const size = Deno.statSync(path).size;
  await using server = await BenchServer.start({ roots: [rootOf(path)] });
  const opens: number[] = [];
  const firstPages: number[] = [];
  let procedures = 0;
  for (let i = 0; i <= ctx.runs; i++) {
    await server.call("close_binary");
    const open = await server.call("open_binary", { path });
    const first = await server.call("list_procedures", { offset: 0, limit: 1 });
    procedures = (structured(first).result as { total: number }).total;
    // The first run is dropped, as in the paired measures.
    if (i === 0) continue;
    opens.push(open.ms);
    firstPages.push(first.ms);
  }
  const range = (values: number[]): string => {
    const { min, median, max } = spread(values);
    return `${median.toFixed(0)} ms (${min.toFixed(0)}–${max.toFixed(0)})`;
  };
  ctx.figure({
    label: `function discovery on stripped ${name} (${mib(size)}): the first list_procedures page`,
    value: range(firstPages),
    note: `${procedures} procedures; reads the rest of the file, parses it and sweeps its code ` +
      `for call targets; open_binary before it ${
        range(opens)
      }; median (min–max) of ${ctx.runs} runs`,
  });
}
