/**
 * `npm run conformance -- --fixtures DIR [--filter TEXT] [--port N] [--quiet]`: replays the
 * execution-apis conformance tests (the `tests` folder of ethereum/execution-apis, fetched, never
 * committed) against a Strata node and prints per-method pass/fail and totals. Exits 1 when a test
 * fails.
 */
import { parseArgs } from "node:util";
import { formatReport, replayFixtures } from "./replay.js";

const { values } = parseArgs({
  options: {
    fixtures: { type: "string" },
    filter: { type: "string" },
    port: { type: "string" },
    quiet: { type: "boolean" },
  },
});
if (!values.fixtures) {
  process.stderr.write("usage: npm run conformance -- --fixtures DIR [--filter TEXT] [--port N] [--quiet]\n");
  process.exit(2);
}
const report = await replayFixtures({
  fixtures: values.fixtures,
  ...(values.filter === undefined ? {} : { filter: values.filter }),
  ...(values.port === undefined ? {} : { port: Number(values.port) }),
  out: (line) => {
    if (!values.quiet || !line.startsWith("pass ")) console.log(line);
  },
});
for (const line of formatReport(report)) console.log(line);
process.exit(report.failed === 0 ? 0 : 1);
