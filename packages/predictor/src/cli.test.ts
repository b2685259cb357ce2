import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runBacktestCommand } from "./cli.js";

const dataPath = (file: string) => fileURLToPath(new URL(`../data/${file}`, import.meta.url));

async function run(argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runBacktestCommand(argv, (line) => lines.push(line));
  return { code, lines };
}

describe("strata predictor backtest", () => {
  it("prints usage for --help", async () => {
    const { code, lines } = await run(["--help"]);
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^Usage: strata predictor backtest --csv FILE/);
    expect(lines.join("\n")).toMatch(/--horizon/);
  });

  it("prints one table per horizon, model beside the random walk", async () => {
    const { code, lines } = await run([
      "--csv",
      dataPath("SOL-USD.csv"),
      "--horizon",
      "1",
      "--horizon=7",
      "--step",
      "5",
    ]);
    expect(code).toBe(0);
    const text = lines.join("\n");
    expect(lines[0]).toMatch(/^SOL-USD\.csv: 1777 daily closes 2020-04-10\.\.2025-02-19; model strata-/);
    expect(text).toMatch(/horizon 1 day: \d+ predictions/);
    expect(text).toMatch(/horizon 7 days: \d+ predictions/);
    for (const row of ["MAPE", "directional accuracy", "80% interval coverage", "calibration error"]) {
      expect(text).toMatch(new RegExp(`${row}\\s+\\S+\\s+\\S+`));
    }
    expect(text).toMatch(/model\s+random walk/);
  });

  it("rejects bad flags with one line and exit code 2", async () => {
    for (const argv of [
      [],
      ["--csv"],
      ["--csv", "x.csv", "--horizon", "0"],
      ["--csv", "x.csv", "--horizon", "seven"],
      ["--csv", "x.csv", "--step", "-1"],
      ["--csv", "x.csv", "--warmup", "5"],
      ["--csv", "x.csv", "--bogus"],
      ["--csv", "x.csv", "extra"],
      ["--csv", "a.csv", "--csv", "b.csv"],
    ]) {
      const { code, lines } = await run(argv);
      expect(code, argv.join(" ")).toBe(2);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^strata predictor backtest: .+ \(see --help\)$/);
    }
  });

  it("reports unreadable, malformed and too short files with exit code 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "predictor-cli-"));
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "date,close\n2024-01-01,abc\n");
    const short = join(dir, "short.csv");
    writeFileSync(short, "date,close\n2024-01-01,1\n2024-01-02,2\n");
    const cases: [string, RegExp][] = [
      [join(dir, "missing.csv"), /cannot read .*missing\.csv/],
      [bad, /bad\.csv: line 2: invalid close "abc"/],
      [short, /short\.csv: insufficient price history/],
    ];
    for (const [file, message] of cases) {
      const { code, lines } = await run(["--csv", file]);
      expect(code).toBe(1);
      expect(lines.at(-1)).toMatch(message);
    }
  });
});
