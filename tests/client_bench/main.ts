/**
 * Runs the client-side benchmarks (`deno task bench:client [name…]`): each
 * module in `benches/` in turn, then prints every paired ratio and figure as
 * markdown tables (and writes them as JSON with `--json FILE`).
 *
 * Options: `--runs N` (paired iterations after the dropped first, default 5),
 * `--size small|medium|large` (default large), `--json FILE`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  type BenchContext,
  type FigureRow,
  type FigureTable,
  type PairedResult,
  pairedRow,
} from "./harness.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    runs: { type: "string", default: "5" },
    size: { type: "string", default: "large" },
    json: { type: "string" },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a positive integer");
const size = values.size;
if (size !== "small" && size !== "medium" && size !== "large") {
  throw new Error("--size takes small, medium or large");
}

const dir = new URL("./benches/", import.meta.url);
const names = [...Deno.readDirSync(dir)]
  .filter((entry) => entry.isFile && entry.name.endsWith(".ts"))
  .map((entry) => entry.name.slice(0, -3))
  .sort();
const unknown = positionals.filter((name) => !names.includes(name));
if (unknown.length) {
  throw new Error(`no such bench: ${unknown.join(", ")} (have: ${names.join(", ")})`);
}
const chosen = positionals.length ? positionals : names;

const report: {
  bench: string;
  paired: PairedResult[];
  figures: FigureRow[];
  tables: FigureTable[];
}[] = [];
for (const name of chosen) {
  const entry = {
    bench: name,
    paired: [] as PairedResult[],
    figures: [] as FigureRow[],
    tables: [] as FigureTable[],
  };
  report.push(entry);
  const tempDir = await Deno.makeTempDir({ prefix: `casefile-bench-${name}-` });
  const ctx: BenchContext = {
    runs,
    size,
    tempDir,
    pairedResult: (result) => {
      entry.paired.push(result);
      console.error(`  ${pairedRow(result)}`);
    },
    figure: (row) => {
      entry.figures.push(row);
      console.error(`  ${row.label}: ${row.value}${row.note ? ` (${row.note})` : ""}`);
    },
    table: (table) => {
      entry.tables.push(table);
      console.error(`  ${table.title}: ${table.rows.length} rows`);
    },
    log: (message) => console.error(`[${name}] ${message}`),
  };
  console.error(`== ${name}`);
  try {
    const module = await import(new URL(`${name}.ts`, dir).href);
    await module.default(ctx);
  } finally {
    await Deno.remove(tempDir, { recursive: true }).catch(() => {});
  }
}

for (const { bench, paired, figures, tables } of report) {
  console.log(`\n### ${bench}\n`);
  if (paired.length) {
    console.log("| measure | ours (median) | peer (median) | ratio min / median / max | target |");
    console.log("|---|---|---|---|---|");
    for (const result of paired) console.log(pairedRow(result));
  }
  if (figures.length) {
    if (paired.length) console.log("");
    console.log("| figure | value | note |");
    console.log("|---|---|---|");
    for (const row of figures) console.log(`| ${row.label} | ${row.value} | ${row.note ?? ""} |`);
  }
  for (const table of tables) {
    console.log(`\n${table.title}\n`);
    console.log(`| ${table.columns.join(" | ")} |`);
    console.log(`|${table.columns.map(() => "---").join("|")}|`);
    for (const row of table.rows) console.log(`| ${row.join(" | ")} |`);
  }
}
if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(report, null, 2));
